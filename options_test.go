package shellcap_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
)

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		opts   shellcap.Options
		option string
	}{
		{"missing workspace", shellcap.Options{Workspace: filepath.Join(dir, "nope")}, "Workspace"},
		{"workspace is a file", shellcap.Options{Workspace: file}, "Workspace"},
		{"missing shell", shellcap.Options{Workspace: dir, ShellPath: "/no/such/shell"}, "ShellPath"},
		{"negative timeout", shellcap.Options{Workspace: dir, DefaultTimeout: -time.Second}, "DefaultTimeout"},
		{"default above max", shellcap.Options{Workspace: dir, DefaultTimeout: time.Hour, MaxTimeout: time.Minute}, "DefaultTimeout"},
		{"negative grace", shellcap.Options{Workspace: dir, KillGrace: -1}, "KillGrace"},
		{"negative file limit", shellcap.Options{Workspace: dir, MaxFileBytes: -1}, "MaxFileBytes"},
		{"negative memory limit", shellcap.Options{Workspace: dir, MemoryLimit: -1}, "MemoryLimit"},
		{"negative cpu limit", shellcap.Options{Workspace: dir, CPUTime: -1}, "CPUTime"},
		{"negative process limit", shellcap.Options{Workspace: dir, MaxProcesses: -1}, "MaxProcesses"},
		{"negative stdout head", shellcap.Options{Workspace: dir, StdoutBudget: shellcap.Budget{Head: -1}}, "StdoutBudget"},
		{"negative stderr tail", shellcap.Options{Workspace: dir, StderrBudget: shellcap.Budget{Tail: -1}}, "StderrBudget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := shellcap.New(tt.opts)
			var oe *shellcap.OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option {
				t.Fatalf("New() error = %v, want an OptionError for %s", err, tt.option)
			}
		})
	}
}

func TestZeroOptionsUseCurrentDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	sh, err := shellcap.New(shellcap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	real, _ := filepath.EvalSymlinks(dir)
	if sh.Workspace() != real || sh.ReadOnly() {
		t.Fatalf("Workspace() = %q ReadOnly() = %v, want %q false", sh.Workspace(), sh.ReadOnly(), real)
	}
}

func TestReadOnlyWorkspace(t *testing.T) {
	sh := newShell(t, shellcap.Options{ReadOnly: true})
	if !sh.ReadOnly() {
		t.Fatal("ReadOnly() = false")
	}
	if _, err := sh.Run(t.Context(), shellcap.Request{Command: "true"}); !errors.Is(err, shellcap.ErrReadOnlyWorkspace) {
		t.Fatalf("Run on a read-only workspace: %v, want ErrReadOnlyWorkspace", err)
	}
}

func TestWorkspaceGone(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	sh := newShell(t, shellcap.Options{Workspace: ws})
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.Run(t.Context(), shellcap.Request{Command: "true"}); !errors.Is(err, shellcap.ErrWorkspaceGone) {
		t.Fatalf("Run after the workspace was removed: %v, want ErrWorkspaceGone", err)
	}
}

func TestClosedShell(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	sh.Close()
	if _, err := sh.Run(t.Context(), shellcap.Request{Command: "true"}); !errors.Is(err, shellcap.ErrClosed) {
		t.Fatalf("Run after Close: %v, want ErrClosed", err)
	}
}

func TestEnvironmentTooLarge(t *testing.T) {
	big := make([]byte, 200_000)
	for i := range big {
		big[i] = 'x'
	}
	sh := newShell(t, shellcap.Options{Env: map[string]string{"HUGE": string(big)}})
	_, err := sh.Run(t.Context(), shellcap.Request{Command: "true"})
	var se *shellcap.StartError
	if !errors.Is(err, shellcap.ErrStart) || !errors.As(err, &se) {
		t.Fatalf("Run with a 200 kB variable: %v, want a StartError", err)
	}
}
