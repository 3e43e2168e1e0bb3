//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/shellcap/shellcap"
)

func TestWrapUnsupported(t *testing.T) {
	if _, err := Wrap(exec.Command("true"), Config{}); !errors.Is(err, ErrUnsupported) || !errors.Is(err, shellcap.ErrUnsupported) {
		t.Fatalf("got %v", err)
	}
	if Doctor().Seccomp {
		t.Fatal("Doctor claims seccomp")
	}
}

// shellcap.New asked for the sandbox here fails with ErrUnsupported, both
// the sandbox package's and shellcap's.
func TestNewWithSandboxUnsupported(t *testing.T) {
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Sandbox: Confiner(Config{})})
	if err == nil {
		sh.Close()
		t.Fatal("New succeeded")
	}
	if !errors.Is(err, ErrUnsupported) || !errors.Is(err, shellcap.ErrUnsupported) || !errors.Is(err, shellcap.ErrInvalidOptions) {
		t.Fatalf("New: %v", err)
	}
}
