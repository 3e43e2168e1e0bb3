package anthropic_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
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
	sopts.Workspace = t.TempDir()
	sopts.Env = leaktest.Env(testMark)
	sopts.Approve = toolset.Approve
	sh, err := shellcap.New(sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	m, err := jobs.New(sh, jobs.Options{KillGrace: 500 * time.Millisecond, KeyDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if list, err := m.List(context.Background()); err == nil {
			for _, j := range list.Jobs {
				m.Stop(context.Background(), jobs.StopRequest{ID: j.ID})
			}
		}
		m.Close()
	})
	ts, err := toolset.New(toolset.Options{Shell: sh, Jobs: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts, sopts.Workspace
}
