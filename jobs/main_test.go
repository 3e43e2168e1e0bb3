//go:build linux

package jobs_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// testMark is put into the environment of every job (and so of every
// supervisor) the tests start, so TestMain can find any they leaked.
var testMark = "SHELLCAP_JOBS_TEST_MARK=" + strconv.Itoa(os.Getpid())

// helperEnv selects a helper role when the test binary is re-executed.
const helperEnv = "SHELLCAP_JOBS_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "host":
		os.Exit(hostHelper())
	}
	warmUp()
	fds := openFDs()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
		if leaked := markedProcesses(testMark, 10*time.Second); len(leaked) > 0 {
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

// hostHelper plays a host process: it starts a job in the workspace named
// by SHELLCAP_JOBS_TEST_WS, prints its ID and waits to be killed.
func hostHelper() int {
	sh, err := shellcap.New(shellcap.Options{Workspace: os.Getenv("SHELLCAP_JOBS_TEST_WS"), Env: markEnv(os.Getenv("SHELLCAP_JOBS_TEST_MARKV"))})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	m, err := jobs.New(sh, jobs.Options{})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	res, err := m.Start(context.Background(), jobs.StartRequest{Command: "echo host-started; sleep 300"})
	if err != nil || res.ID == "" {
		fmt.Println("error:", err, res)
		return 1
	}
	fmt.Println("ID", res.ID)
	time.Sleep(10 * time.Minute)
	return 0
}

func markEnv(value string) map[string]string {
	name, _, _ := strings.Cut(testMark, "=")
	return map[string]string{name: value}
}

// markedProcesses lists live processes carrying mark, waiting up to wait
// for ones that are just exiting.
func markedProcesses(mark string, wait time.Duration) []int {
	deadline := time.Now().Add(wait)
	for {
		var found []int
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			env, err := os.ReadFile(d + "/environ")
			if err != nil || !bytes.Contains(env, []byte(mark+"\x00")) {
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

// warmUp opens what the runtime keeps open for good once used, so the
// descriptor counts before and after the tests compare.
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
