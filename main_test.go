package shellcap_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// testMark is put into the environment of every command the tests run, so
// that TestMain can find any process they leaked, wherever it moved.
var testMark = "SCTEST_MARK=" + strconv.Itoa(os.Getpid())

func TestMain(m *testing.M) {
	warmUp()
	fds := openFDs()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
		if leaked := markedProcesses(5 * time.Second); len(leaked) > 0 {
			fmt.Fprintln(os.Stderr, "leaked processes:", leaked)
			code = 1
		}
		if after := openFDs(); after > fds {
			fmt.Fprintf(os.Stderr, "leaked file descriptors: %d open before the tests, %d after\n", fds, after)
			code = 1
		}
	}
	os.Exit(code)
}

// markedProcesses lists live processes carrying testMark, waiting up to
// wait for ones that are just exiting.
func markedProcesses(wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		var found []int
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.Contains(env, []byte(testMark+"\x00")) {
				continue
			}
			if stat, err := os.ReadFile(d + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
				continue // a zombie waiting for its parent
			}
			pid, _ := strconv.Atoi(filepath.Base(d))
			found = append(found, pid)
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// warmUp opens what the runtime keeps open for good once used (the
// network poller, the pidfd probe), so that the descriptor count taken
// before the tests is comparable to the one after.
func warmUp() {
	_ = exec.Command("true").Run()
	r, w, err := os.Pipe()
	if err == nil {
		_ = r.SetReadDeadline(time.Now())
		r.Close()
		w.Close()
	}
}

func openFDs() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(entries)
}
