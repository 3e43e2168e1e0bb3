// Package leaktest checks that a test binary leaves nothing behind: no
// goroutine, no process and no file descriptor. Tests put a mark into the
// environment of every command they start (Mark, Env); after the tests,
// Main looks for live processes carrying it, wherever they moved.
package leaktest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Mark returns "NAME=PID", unique to this test process.
func Mark(name string) string { return name + "=" + strconv.Itoa(os.Getpid()) }

// Env returns mark as a one-variable map, for shellcap.Options.Env.
func Env(mark string) map[string]string {
	name, value, _ := strings.Cut(mark, "=")
	return map[string]string{name: value}
}

// Processes lists the live processes whose environment holds mark, waiting
// up to wait for ones that are just exiting. Zombies do not count.
func Processes(mark string, wait time.Duration) []int {
	needle := []byte(mark + "\x00")
	deadline := time.Now().Add(wait)
	for {
		var found []int
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.HasPrefix(env, needle) && !bytes.Contains(env, append([]byte{0}, needle...)) {
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

// Main runs the tests; when they pass it fails the run on leaked
// goroutines, on live processes carrying mark (after waiting up to wait),
// on more open file descriptors than before, and on whatever extra
// reports. It returns the exit code for os.Exit.
func Main(m *testing.M, mark string, wait time.Duration, extra ...func() error) int {
	warmUp()
	fds := openFDs()
	code := m.Run()
	if code != 0 {
		return code
	}
	fail := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
		code = 1
	}
	if err := goleak.Find(); err != nil {
		fail("leaked goroutines: %v", err)
	}
	if leaked := Processes(mark, wait); len(leaked) > 0 {
		fail("leaked processes: %v", leaked)
	}
	if after := openFDs(); after > fds {
		fail("leaked file descriptors: %d open before the tests, %d after", fds, after)
	}
	for _, check := range extra {
		if err := check(); err != nil {
			fail("%v", err)
		}
	}
	return code
}

// warmUp opens what the runtime keeps open for good once used (the network
// poller, the pidfd probe), so that the descriptor counts before and after
// the tests compare.
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
