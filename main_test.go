package shellcap_test

import (
	"os"
	"testing"
	"time"

	"github.com/shellcap/shellcap/internal/leaktest"
)

// testMark is put into the environment of every command the tests run, so
// that TestMain can find any process they leaked, wherever it moved.
var testMark = leaktest.Mark("SCTEST_MARK")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// markedProcesses lists live processes carrying testMark.
func markedProcesses(wait time.Duration) []int { return leaktest.Processes(testMark, wait) }
