package proc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

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
			want: Info{PID: 42, Comm: "bash", State: 'S', PGID: 42, SID: 42, StartTicks: 12345},
		},
		{
			name: "comm with spaces and parens",
			line: "7 (a (b) c) R 1 9 8 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 1 2",
			want: Info{PID: 7, Comm: "a (b) c", State: 'R', PGID: 9, SID: 8, StartTicks: 99},
		},
		{
			name: "zombie with its exit code",
			line: "27138 (exe) Z 27114 27138 27138 0 -1 4227148 1 0 0 0 0 0 0 0 20 0 1 0 656718 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 64768",
			want: Info{PID: 27138, Comm: "exe", State: 'Z', PGID: 27138, SID: 27138, StartTicks: 656718, ExitCode: 253 << 8},
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

func TestGroupLifecycle(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & exit 0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if err := WaitExited(pgid); err != nil {
		t.Fatal(err)
	}
	// The leader is a zombie now; it must not be listed, the sleep must
	// (once the forked child has exec'd sleep).
	var members []Info
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if members, err = GroupMembers(pgid, 0); err != nil {
			t.Fatal(err)
		}
		if len(members) == 1 && members[0].Comm == "sleep" || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(members) != 1 || members[0].Comm != "sleep" || members[0].SID != pgid {
		t.Fatalf("members = %+v, want one sleep in session %d", members, pgid)
	}
	if self, err := Stat(os.Getpid()); err != nil || self.PID != os.Getpid() {
		t.Fatalf("Stat(self) = %+v, %v", self, err)
	}
	if err := SignalGroup(pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for GroupExists(pgid) {
		if time.Now().After(deadline) {
			t.Fatal("group still exists after SIGKILL")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := SignalGroup(pgid, syscall.SIGTERM); err != nil {
		t.Fatalf("signalling a gone group: %v", err)
	}
	if err := SignalGroup(1, syscall.SIGTERM); err == nil {
		t.Fatal("SignalGroup(1) must refuse")
	}
}
