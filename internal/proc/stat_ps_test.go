//go:build unix && !darwin && (!linux || shellcap_portable)

package proc

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParsePSLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Info
		bad  bool
	}{
		{
			name: "session leader",
			line: "18006 18004 18006 Ss   Tue Dec  1 20:13:34 2026 bash",
			want: Info{PID: 18006, PPID: 18004, PGID: 18006, State: 'S', Comm: "bash", StartTicks: 1796156014},
		},
		{
			name: "name with spaces",
			line: "  7     1     9 Z+   Mon Jan 12 01:02:03 2026 a b  c ",
			want: Info{PID: 7, PPID: 1, PGID: 9, State: 'Z', Comm: "a b  c", StartTicks: 1768179723},
		},
		{
			name: "name that repeats the year",
			line: "7 1 9 R Mon Jan 12 01:02:03 2026 2026",
			want: Info{PID: 7, PPID: 1, PGID: 9, State: 'R', Comm: "2026", StartTicks: 1768179723},
		},
		{name: "no name", line: "7 1 9 R Mon Jan 12 01:02:03 2026", bad: true},
		{name: "bad date", line: "7 1 9 R Mon Jan 32 01:02:03 2026 x", bad: true},
		{name: "bad pid", line: "x 1 9 R Mon Jan 12 01:02:03 2026 x", bad: true},
		{name: "empty", line: "", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePSLine([]byte(tt.line))
			if tt.bad {
				if err == nil {
					t.Fatalf("parsePSLine(%q) = %+v, want error", tt.line, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parsePSLine(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			}
		})
	}
}

// A PID with no process is errNoProcess; a ps that cannot run is another
// error, so callers never take "cannot tell" for "gone".
func TestPSMissingProcessAndMissingPS(t *testing.T) {
	if _, err := Stat(1 << 22); !errors.Is(err, errNoProcess) {
		t.Fatalf("Stat(no such pid) = %v, want errNoProcess", err)
	}
	saved := psPath
	defer func() { psPath = saved }()
	psPath = filepath.Join(t.TempDir(), "ps")
	if _, err := Stat(os.Getpid()); err == nil || errors.Is(err, errNoProcess) {
		t.Fatalf("Stat without ps = %v, want an error other than errNoProcess", err)
	}
	if m, err := GroupMembers(os.Getpid(), 0); err == nil {
		t.Fatalf("GroupMembers without ps = %v, nil; want an error", m)
	}
}
