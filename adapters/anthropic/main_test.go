package anthropic_test

import (
	"os"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/toolset"
)

var testMark = leaktest.Mark("SCTEST_ANTHROPIC_MARK")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// newToolset builds a toolset with a job Manager on a real, unconfined Shell
// in a fresh workspace, with toolset.Approve as the Shell's approver.
func newToolset(t *testing.T, sopts shellcap.Options) (*toolset.Toolset, string) {
	t.Helper()
	sopts.Workspace = ""
	sopts.Env = leaktest.Env(testMark)
	return toolsettest.New(t, toolsettest.Options{Shell: sopts, KeyDir: t.TempDir()})
}
