//go:build linux

package session_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// testMark is put into the environment of every shell the tests start, so
// that TestMain can find any process they leaked.
var testMark = "SHELLCAP_SESSION_TEST_MARK=" + strconv.Itoa(os.Getpid())

func TestMain(m *testing.M) {
	warmUp()
	fds := openFDs()
	dirs := sessionDirs()
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
		if after := openFDs(); after > fds {
			fmt.Fprintf(os.Stderr, "leaked file descriptors: %d open before the tests, %d after\n", fds, after)
			code = 1
		}
		for _, d := range sessionDirs() {
			if !slices.Contains(dirs, d) {
				fmt.Fprintln(os.Stderr, "session directory left behind:", d)
				code = 1
			}
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
				continue
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

// sessionDirs lists the private directories of sessions.
func sessionDirs() []string {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "shellcap-session-*"))
	return dirs
}

// warmUp opens what the runtime keeps open for good once used, so that the
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

// newShell returns a Shell on a fresh workspace whose processes carry the
// leak-check mark.
func newShell(t testing.TB, opts shellcap.Options) *shellcap.Shell {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	env := map[string]string{}
	for k, v := range opts.Env {
		env[k] = v
	}
	name, value, _ := bytes.Cut([]byte(testMark), []byte("="))
	env[string(name)] = string(value)
	opts.Env = env
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatalf("shellcap.New: %v", err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// newSession starts a session on a fresh workspace; it is closed when the
// test ends.
func newSession(t testing.TB, opts session.Options) *session.Session {
	t.Helper()
	sh := newShell(t, shellcap.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := session.New(ctx, sh, opts)
	if err != nil {
		t.Fatalf("session.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// run runs command, without the Shell's policy (the tests send text it
// would refuse, to show the session survives it), with a deadline that keeps a broken test from hanging.
func run(t testing.TB, s *session.Session, command string) *session.Result {
	t.Helper()
	return runReq(t, s, session.Request{Command: command})
}

func runReq(t testing.TB, s *session.Session, req session.Request) *session.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := s.RunUnchecked(ctx, req)
	if err != nil {
		t.Fatalf("Run(%q): %v", req.Command, err)
	}
	return res
}

// want checks the model text.
func want(t testing.TB, res *session.Result, text string) {
	t.Helper()
	if got := res.Text(); got != text {
		t.Fatalf("Run(%q) text:\n%s\nwant:\n%s", res.Command, got, text)
	}
}
