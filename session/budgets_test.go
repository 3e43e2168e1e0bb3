//go:build linux

package session_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// TestStreamBudgetsFromShell: the Shell's per-stream head and tail
// budgets (gptme's case: its shell tool is a session) cut a session
// command's output as they cut Shell.Run's.
func TestStreamBudgetsFromShell(t *testing.T) {
	sh := newShell(t, shellcap.Options{
		StdoutBudget: shellcap.Budget{Head: 12, Tail: 12},
		StderrBudget: shellcap.Budget{Head: 6, Tail: 6},
	})
	s, err := session.New(context.Background(), sh, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := run(t, s, "seq 1 5000; seq 1 3000 >&2")
	if !strings.HasPrefix(res.Stdout, "1\n2\n3\n4\n5\n6\n") || !strings.Contains(res.Stdout, "omitted") || !strings.HasSuffix(res.Stdout, "4999\n5000\n") {
		t.Errorf("stdout under a 12/12 budget: %q", res.Stdout)
	}
	if len(res.Stdout) > 200 || res.StdoutOmitted == 0 || res.StdoutBytes < 20000 {
		t.Errorf("stdout %d characters, %d omitted of %d", len(res.Stdout), res.StdoutOmitted, res.StdoutBytes)
	}
	if !strings.HasPrefix(res.Stderr, "1\n2\n3\n") || !strings.HasSuffix(res.Stderr, "3000\n") || len(res.Stderr) > 120 {
		t.Errorf("stderr under a 6/6 budget: %q", res.Stderr)
	}
	// Without budgets the same command keeps its end only (the
	// MaxOutputChars rule), so the budgets are what made the head appear.
	plain := newSession(t, session.Options{})
	if r := run(t, plain, "seq 1 5000"); strings.Contains(r.Text(), "omitted") {
		t.Errorf("without budgets: %q", r.Text())
	}
}
