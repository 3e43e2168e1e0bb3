//go:build unix

package shellcap_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// markingConfiner is a Confiner that is not package sandbox's: it marks
// the command's environment and says it confined it.
type markingConfiner struct{}

func (markingConfiner) Confine(cmd *exec.Cmd, _ string) (*shellcap.Enforcement, error) {
	cmd.Env = append(cmd.Env, "AUDIT_CONFINED=by-marking-confiner")
	return &shellcap.Enforcement{Profile: "marking", Layers: []string{"env-mark"}}, nil
}

// TestAnyConfinerConfinesSessions: a session of a Shell whose Sandbox is a
// Confiner other than package sandbox's runs its shell through it, and
// each result reports that Confiner's Enforcement.
func TestAnyConfinerConfinesSessions(t *testing.T) {
	sh := newShell(t, shellcap.Options{Sandbox: markingConfiner{}})
	s, err := session.New(t.Context(), sh, session.Options{})
	if err != nil {
		t.Fatalf("session.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	res, err := s.Run(t.Context(), session.Request{Command: "echo $AUDIT_CONFINED"})
	if err != nil || res.Err != nil {
		t.Fatalf("Run: %v %v", err, res.Err)
	}
	if strings.TrimSpace(res.Stdout) != "by-marking-confiner" {
		t.Errorf("the session's shell did not go through the Confiner: %q", res.Stdout)
	}
	if res.Sandbox == nil || res.Sandbox.Profile != "marking" {
		t.Errorf("Sandbox = %+v, want the Confiner's Enforcement", res.Sandbox)
	}
}
