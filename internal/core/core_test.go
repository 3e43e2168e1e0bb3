package core_test

import (
	"os/exec"
	"testing"

	"github.com/shellcap/shellcap/internal/core"
)

func TestKeepBytes(t *testing.T) {
	tests := []struct {
		name     string
		maxChars int
		maxBytes int64
		want     int
	}{
		{"four bytes per character", 50_000, 64 << 20, 200_000},
		{"at least 4 KiB", 20, 64 << 20, 4096},
		{"no text cap", -1, 64 << 20, 8 << 20},
		{"no text cap, no byte cap", -1, -1, 8 << 20},
		{"never above the byte cap", 50_000, 1000, 1000},
		{"byte cap below the floor", 20, 100, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := core.KeepBytes(tt.maxChars, tt.maxBytes); got != tt.want {
				t.Errorf("KeepBytes(%d, %d) = %d, want %d", tt.maxChars, tt.maxBytes, got, tt.want)
			}
			s := core.Settings{MaxOutputChars: tt.maxChars, MaxOutputBytes: tt.maxBytes}
			if got := s.KeepBytes(); got != tt.want {
				t.Errorf("Settings.KeepBytes() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestNotes(t *testing.T) {
	if got, want := core.CanceledNote(core.StoppedGroup), "Command was cancelled; its process group was stopped."; got != want {
		t.Errorf("CanceledNote = %q, want %q", got, want)
	}
	if got, want := core.OutputLimitNote(64<<20, core.StoppedCommand), "Output exceeded 64 MiB; the command was stopped. Redirect large output to a file and read parts of it."; got != want {
		t.Errorf("OutputLimitNote = %q, want %q", got, want)
	}
}

// TestExitStatus runs real shells: a plain exit and a death by signal.
func TestExitStatus(t *testing.T) {
	tests := []struct {
		script string
		code   int
		signal string
	}{
		{"exit 0", 0, ""},
		{"exit 7", 7, ""},
		{"kill -TERM $$", 128 + 15, "SIGTERM"},
		{"kill -KILL $$", 128 + 9, "SIGKILL"},
	}
	for _, tt := range tests {
		cmd := exec.Command("bash", "-c", tt.script)
		_ = cmd.Run()
		code, sig := core.ExitStatus(cmd.ProcessState)
		if code != tt.code || sig != tt.signal {
			t.Errorf("%s: ExitStatus = %d %q, want %d %q", tt.script, code, sig, tt.code, tt.signal)
		}
	}
	if code, sig := core.ExitStatus(nil); code != -1 || sig != "" {
		t.Errorf("ExitStatus(nil) = %d %q, want -1", code, sig)
	}
}
