package core

import (
	"strings"
	"testing"
	"time"
)

func TestLimitNotes(t *testing.T) {
	cpu := Settings{CPUTime: 2 * time.Second}
	file := Settings{MaxFileBytes: 1024}
	tests := []struct {
		name string
		s    Settings
		o    LimitOutcome
		want string // a substring of the joined notes; "" means no note
	}{
		{"no limits", Settings{}, LimitOutcome{ExitCode: 137, Signal: "SIGKILL"}, ""},
		{"SIGXCPU", cpu, LimitOutcome{ExitCode: 152, Signal: "SIGXCPU"}, "CPU time limit reached: cpu_time=2s."},
		{"SIGKILL at the hard limit", cpu, LimitOutcome{ExitCode: 137, Signal: "SIGKILL", CPU: 2900 * time.Millisecond}, "CPU time limit reached"},
		{"SIGKILL long before the limit", cpu, LimitOutcome{ExitCode: 137, Signal: "SIGKILL", CPU: 10 * time.Millisecond}, ""},
		{"SIGKILL, CPU unknown", cpu, LimitOutcome{ExitCode: 137, Signal: "SIGKILL", CPU: -1}, ""},
		{"SIGKILL the executor sent", cpu, LimitOutcome{ExitCode: 137, Signal: "SIGKILL", CPU: 5 * time.Second, Stopped: true}, ""},
		{"exit 1 under a CPU limit", cpu, LimitOutcome{ExitCode: 1, CPU: 5 * time.Second}, ""},
		{"SIGXFSZ", file, LimitOutcome{ExitCode: 153}, "File-size limit exceeded: max_file_bytes=1024."},
		{"a child's SIGXFSZ", file, LimitOutcome{Stderr: "bash: line 1: 42 File size limit exceeded head -c 9 > f\n"}, "killed by the file-size limit (max_file_bytes=1024) and the command went on"},
		{"failure under a file limit", file, LimitOutcome{ExitCode: 1}, "Command failed with max_file_bytes=1024"},
		{"success under a file limit", file, LimitOutcome{}, ""},
		{"memory", Settings{MemoryLimit: 1 << 20}, LimitOutcome{ExitCode: 1}, "memory_limit=1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(LimitNotes(tt.s, tt.o), "\n")
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Fatalf("notes %q, want %q", got, tt.want)
			}
		})
	}
}
