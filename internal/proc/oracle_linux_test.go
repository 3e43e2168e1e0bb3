//go:build linux && shellcap_portable

package proc

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The portable reader must agree with /proc, which Linux keeps anyway:
// parent, group, state and name of a live process, a start time that
// orders with TicksAt, and no entry once the process is reaped.
func TestPortableReaderAgreesWithProcfs(t *testing.T) {
	before, _ := TicksAt(time.Now())
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	defer cmd.Wait()
	defer cmd.Process.Kill()
	var got Info
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if got, err = Stat(pid); err != nil {
			t.Fatal(err)
		}
		if got.Comm == "sleep" || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	want := Info{PID: pid, PPID: os.Getpid(), PGID: pid, State: f[0][0], Comm: "sleep", StartTicks: got.StartTicks}
	if got != want || string(f[2]) != strconv.Itoa(pid) {
		t.Fatalf("Stat = %+v, /proc says %s; want %+v", got, stat, want)
	}
	if got.StartTicks+1 < before {
		t.Fatalf("StartTicks %d is before TicksAt(start) %d", got.StartTicks, before)
	}
	members, err := GroupMembers(pid, 0)
	if err != nil || len(members) != 1 || members[0] != got {
		t.Fatalf("GroupMembers(%d) = %+v, %v; want [%+v]", pid, members, err, got)
	}
	if !HasChild(os.Getpid()) {
		t.Fatal("HasChild(self) = false with a child running")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if info, err := Stat(pid); err == nil {
		t.Fatalf("Stat of a reaped process = %+v", info)
	}
}
