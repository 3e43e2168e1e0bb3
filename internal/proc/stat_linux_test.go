//go:build linux && !shellcap_portable

package proc

import "testing"

func TestParseStat(t *testing.T) {
	tests := []struct {
		name string
		line string
		want Info
		bad  bool
	}{
		{
			name: "plain",
			line: "42 (bash) S 1 42 42 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 12345 100 200",
			want: Info{PID: 42, PPID: 1, Comm: "bash", State: 'S', PGID: 42, StartTicks: 12345},
		},
		{
			name: "comm with spaces and parens",
			line: "7 (a (b) c) R 1 9 8 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 1 2",
			want: Info{PID: 7, PPID: 1, Comm: "a (b) c", State: 'R', PGID: 9, StartTicks: 99},
		},
		{
			name: "zombie with its exit code",
			line: "27138 (exe) Z 27114 27138 27138 0 -1 4227148 1 0 0 0 0 0 0 0 20 0 1 0 656718 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 64768",
			want: Info{PID: 27138, PPID: 27114, Comm: "exe", State: 'Z', PGID: 27138, StartTicks: 656718, ExitCode: 253 << 8},
		},
		{name: "truncated", line: "7 (x) R 1 2", bad: true},
		{name: "no parens", line: "7 x R 1 2 3", bad: true},
		{name: "empty", line: "", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line))
			if tt.bad {
				if err == nil {
					t.Fatalf("parseStat(%q) = %+v, want error", tt.line, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parseStat(%q) = %+v, %v; want %+v", tt.line, got, err, tt.want)
			}
		})
	}
}
