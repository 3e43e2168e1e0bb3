package session_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/sandbox"
	"github.com/shellcap/shellcap/session"
)

// newSandboxedSession returns a session whose whole shell runs in the
// sandbox (workspace-write, no network) of a Shell on ws.
func newSandboxedSession(t testing.TB, ws string) *session.Session {
	t.Helper()
	c := sandbox.Doctor()
	if !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot enforce the sandbox:\n%s", c.Text())
		}
		t.Skipf("machine cannot enforce the full sandbox:\n%s", c.Text())
	}
	sh := newShell(t, shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(sandbox.Config{})})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := session.New(ctx, sh, session.Options{})
	if err != nil {
		t.Fatalf("session.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSandboxedSession runs a session's shell inside the sandbox: state
// persists, writes outside the workspace fail, the network is gone, and
// after an interrupt or a restart the shell is still confined.
func TestSandboxedSession(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	s := newSandboxedSession(t, ws)

	res := run(t, s, "mkdir -p sub && cd sub && export GREETING=hi && f() { echo fn; }")
	if res.ExitCode != 0 || res.Sandbox == nil || res.Sandbox.Profile != "workspace-write" {
		t.Fatalf("first call: %+v\n%s", res.Sandbox, res.Text())
	}
	res = run(t, s, "pwd; echo $GREETING; f")
	if want := filepath.Join(ws, "sub") + "\nhi\nfn\n"; res.Stdout != want {
		t.Fatalf("state did not persist: %q, want %q", res.Stdout, want)
	}

	escape := "echo x > " + filepath.Join(outside, "evil")
	check := func(when string) {
		t.Helper()
		res := run(t, s, escape)
		if res.ExitCode == 0 {
			t.Fatalf("%s: write outside the workspace succeeded\n%s", when, res.Text())
		}
		if _, err := os.Stat(filepath.Join(outside, "evil")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: the file outside exists: %v", when, err)
		}
		res = run(t, s, "exec 3<>/dev/tcp/127.0.0.1/22")
		if res.ExitCode == 0 {
			t.Fatalf("%s: a TCP socket was allowed\n%s", when, res.Text())
		}
	}
	check("first shell")

	// A timed-out builtin loop interrupts only the command.
	res = runReq(t, s, session.Request{Command: "while :; do :; done", Timeout: 300 * time.Millisecond})
	if !res.TimedOut || res.Restarted {
		t.Fatalf("timeout: %s", res.Text())
	}
	res = run(t, s, "echo $GREETING")
	if res.Stdout != "hi\n" {
		t.Fatalf("state lost after the timeout: %s", res.Text())
	}
	check("after the timeout")

	// exit restarts the shell, still inside the sandbox.
	res = run(t, s, "exit 3")
	if !res.Restarted || res.ExitCode != 3 {
		t.Fatalf("exit 3: %s", res.Text())
	}
	res = run(t, s, "echo $GREETING; pwd")
	if !strings.HasPrefix(res.Stdout, "hi\n") || res.Sandbox == nil {
		t.Fatalf("after restart: %+v %s", res.Sandbox, res.Text())
	}
	check("after the restart")
}

// BenchmarkSandboxedSessionRoundTrip compares the round trip of the
// builtin true in a session whose shell runs in the sandbox with the same
// in an unsandboxed session, interleaved, and reports the medians and
// their ratio (sandboxed / plain): medians, because a shared machine's
// stalls hit single calls and would dominate the means.
func BenchmarkSandboxedSessionRoundTrip(b *testing.B) {
	boxed := newSandboxedSession(b, b.TempDir())
	plain := newSession(b, session.Options{})
	ctx := context.Background()
	var plainT, boxedT []time.Duration
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first, so neither always follows the other.
		order := []*session.Session{plain, boxed}
		if i%2 == 1 {
			order = []*session.Session{boxed, plain}
		}
		for _, s := range order {
			t0 := time.Now()
			res, err := s.RunUnchecked(ctx, session.Request{Command: "true"})
			d := time.Since(t0)
			if err != nil || res.ExitCode != 0 {
				b.Fatalf("round trip: %v", err)
			}
			if s == plain {
				plainT = append(plainT, d)
			} else {
				boxedT = append(boxedT, d)
			}
		}
	}
	p, x := median(plainT), median(boxedT)
	b.ReportMetric(float64(p.Nanoseconds()), "plain-ns/op")
	b.ReportMetric(float64(x.Nanoseconds()), "sandboxed-ns/op")
	b.ReportMetric(float64(x)/float64(p), "ratio")
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
