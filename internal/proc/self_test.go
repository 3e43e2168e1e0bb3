//go:build unix

package proc

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Whatever reader this platform uses, it agrees with the system calls
// about this process, and sees an unreaped child as a zombie that no
// longer counts as a group member.
func TestReaderAgreesWithSyscalls(t *testing.T) {
	self, err := Stat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.PID != os.Getpid() || self.PPID != os.Getppid() || self.PGID != syscall.Getpgrp() || self.gone() || self.StartTicks == 0 {
		t.Fatalf("Stat(self) = %+v; want pid %d ppid %d pgid %d, running", self, os.Getpid(), os.Getppid(), syscall.Getpgrp())
	}
	if now, ok := TicksAt(time.Now()); !ok || self.StartTicks > now+1 {
		t.Fatalf("started at %d, after TicksAt(now) = %d, %v", self.StartTicks, now, ok)
	}
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if err := WaitExited(pid); err != nil {
		t.Fatal(err)
	}
	zombie, err := Stat(pid)
	if err != nil || zombie.State != 'Z' || zombie.PPID != os.Getpid() {
		t.Fatalf("Stat(exited child) = %+v, %v; want a zombie of ours", zombie, err)
	}
	if m, err := GroupMembers(pid, 0); err != nil || len(m) != 0 {
		t.Fatalf("GroupMembers of a zombie's group = %+v, %v; want none", m, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
}
