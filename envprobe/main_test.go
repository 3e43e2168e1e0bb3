package envprobe

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// testMark is in the environment of every command the tests run, so that
// TestMain can find processes they leaked.
const testMarkName = "ENVPROBE_TEST_MARK"

var testMark = strconv.Itoa(os.Getpid())

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
		if leaked := markedProcesses(10 * time.Second); len(leaked) > 0 {
			fmt.Fprintln(os.Stderr, "leaked processes:", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// markedProcesses lists live processes carrying testMark, waiting up to
// wait for ones that are just exiting.
func markedProcesses(wait time.Duration) []int {
	needle := []byte(testMarkName + "=" + testMark + "\x00")
	deadline := time.Now().Add(wait)
	for {
		var found []int
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.Contains(env, needle) {
				continue
			}
			if stat, err := os.ReadFile(d + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
				continue
			}
			pid, _ := strconv.Atoi(filepath.Base(d))
			found = append(found, pid)
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(50 * time.Millisecond)
	}
}
