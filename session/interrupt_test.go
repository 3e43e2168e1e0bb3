//go:build linux

package session_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap/session"
)

// TestIgnoredInterrupt runs commands that ignore SIGINT past a short
// timeout: the result says the command timed out and what was done, with
// nothing of the shell's own (tcsetattr errors, job notices) in it, and
// the session goes on with its state.
func TestIgnoredInterrupt(t *testing.T) {
	for _, cmd := range []string{
		"trap '' INT; sleep 30",
		"trap '' INT; sleep 30 & sleep 30",
		"(trap '' INT; exec sleep 30)",
		"trap '' INT TERM; sleep 30",
		"trap 'echo caught' INT; sleep 30",
	} {
		t.Run(cmd, func(t *testing.T) {
			s := newSession(t, session.Options{InterruptGrace: 200 * time.Millisecond})
			run(t, s, "kept=yes")
			res := runReq(t, s, session.Request{Command: cmd, Timeout: time.Second})
			if !res.TimedOut || res.ExitCode != 124 {
				t.Fatalf("timed out %v, exit %d:\n%s", res.TimedOut, res.ExitCode, res.Text())
			}
			for _, bad := range []string{"tcsetattr", "bash:", "Killed", "Interrupt"} {
				if strings.Contains(res.Stdout+res.Stderr, bad) {
					t.Errorf("output has %q:\n%s", bad, res.Text())
				}
			}
			if strings.Contains(cmd, "trap ''") && !strings.Contains(res.Text(), "did not stop on SIGINT, so they were sent SIGTERM") {
				t.Errorf("no note on the escalation:\n%s", res.Text())
			}
			for i := 0; i < 2; i++ {
				res = run(t, s, "echo $kept")
				if res.Stdout != "yes\n" && !res.Restarted {
					t.Fatalf("after the timeout: %s", res.Text())
				}
				if res.Stderr != "" {
					t.Fatalf("after the timeout, stderr: %s", res.Text())
				}
			}
		})
	}
}
