package session_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// TestCommandFileBound: a command too long for the sealed command file is
// refused with a message the model can act on, and the session goes on; a
// command just under the bound runs.
func TestCommandFileBound(t *testing.T) {
	s := newSession(t, session.Options{})
	res := run(t, s, ": "+strings.Repeat("x", 4<<20))
	if !errors.Is(res.Err, shellcap.ErrCommandTooLong) || !strings.Contains(res.Text(), "at most") {
		t.Fatalf("a 4 MiB command: %v %q", res.Err, res.Text())
	}
	res = run(t, s, "echo "+strings.Repeat("y", 1<<20)+" | wc -c")
	if strings.TrimSpace(res.Stdout) != "1048577" {
		t.Fatalf("a 1 MiB command: %q %v", res.Stdout, res.Err)
	}
}
