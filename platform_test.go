package shellcap_test

import (
	"errors"
	"fmt"
	"os/exec"
	"testing"

	"github.com/shellcap/shellcap"
)

// unsupportedConfiner is a sandbox this platform cannot have, as
// sandbox.Confiner is outside Linux.
type unsupportedConfiner struct{}

var errNoSandboxHere = fmt.Errorf("test sandbox: %w", shellcap.ErrUnsupported)

func (unsupportedConfiner) Confine(*exec.Cmd, string) (*shellcap.Enforcement, error) {
	return nil, errNoSandboxHere
}

type unsupportedLaunching struct{ unsupportedConfiner }

func (unsupportedLaunching) Launcher(string) (shellcap.Launcher, error) { return nil, errNoSandboxHere }

// New with a sandbox the platform lacks fails with ErrUnsupported (and
// still names the option), never with a read-only Shell or a generic error.
func TestNewSandboxUnsupported(t *testing.T) {
	for name, c := range map[string]shellcap.Confiner{
		"confiner":           unsupportedConfiner{},
		"launching confiner": unsupportedLaunching{},
	} {
		t.Run(name, func(t *testing.T) {
			sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Sandbox: c})
			if err == nil {
				sh.Close()
				t.Fatal("New succeeded with a sandbox that cannot be had")
			}
			var oe *shellcap.OptionError
			if !errors.Is(err, shellcap.ErrUnsupported) || !errors.Is(err, errNoSandboxHere) ||
				!errors.Is(err, shellcap.ErrInvalidOptions) || !errors.As(err, &oe) || oe.Option != "Sandbox" {
				t.Fatalf("New: %v (%T); want ErrUnsupported and an OptionError for Sandbox", err, err)
			}
		})
	}
}

// A writable workspace is writable on every Unix: Run works, it is not
// refused as read-only.
func TestWritableWorkspaceRuns(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	if sh.ReadOnly() {
		t.Fatalf("a fresh temporary workspace %s reads as read-only", sh.Workspace())
	}
	res := run(t, sh, shellcap.Request{Command: "echo ok"})
	if res.Err != nil || res.Stdout != "ok\n" || res.ExitCode != 0 {
		t.Fatalf("Run: %+v", res)
	}
}
