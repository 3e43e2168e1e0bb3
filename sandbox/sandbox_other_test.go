//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
	"testing"
)

func TestWrapUnsupported(t *testing.T) {
	if _, err := Wrap(exec.Command("true"), Config{}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("got %v", err)
	}
	if Doctor().Seccomp {
		t.Fatal("Doctor claims seccomp")
	}
}
