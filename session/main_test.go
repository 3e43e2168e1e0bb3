//go:build linux

package session_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/session"
)

// testMark is put into the environment of every shell the tests start, so
// that TestMain can find any process they leaked.
var testMark = leaktest.Mark("SCTEST_SESSION_MARK")

func TestMain(m *testing.M) {
	dirs := sessionDirs()
	os.Exit(leaktest.Main(m, testMark, 10*time.Second, func() error {
		for _, d := range sessionDirs() {
			if !slices.Contains(dirs, d) {
				return fmt.Errorf("session directory left behind: %s", d)
			}
		}
		return nil
	}))
}

// markedProcesses lists live processes carrying testMark.
func markedProcesses(wait time.Duration) []int { return leaktest.Processes(testMark, wait) }

// sessionDirs lists the private directories of sessions.
func sessionDirs() []string {
	// Only this process's: other packages' tests may run at the same time.
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "shellcap-session-"+strconv.Itoa(os.Getpid())+"-*"))
	return dirs
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
