//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

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
	if len(members) != 1 || members[0].Comm != "sleep" || members[0].PGID != pgid {
		t.Fatalf("members = %+v, want one sleep in group %d", members, pgid)
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
