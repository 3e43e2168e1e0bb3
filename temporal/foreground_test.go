//go:build linux

package temporal

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shellcap/shellcap/internal/proc"
)

// orphan starts a process group (a sleep) as a killed worker would leave
// it, and returns its ID and start time.
func orphan(t *testing.T) (int, uint64) {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), testMark)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	st, err := proc.Stat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, st.StartTicks
}

// deadWorker returns the PID of a process that has exited (and its start
// time), standing for a worker killed with SIGKILL.
func deadWorker(t *testing.T) (int, uint64) {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, _ := proc.Stat(cmd.Process.Pid)
	_ = cmd.Wait()
	return cmd.Process.Pid, st.StartTicks + 1
}

// TestSweep: the sweep kills the group of a verified record whose worker
// is gone, removes a stale one, and leaves alone a record of a live
// worker, a forged one and one it cannot parse, killing nothing for them.
func TestSweep(t *testing.T) {
	ws := t.TempDir()
	f, err := newForeground("sweep", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	wpid, wticks := deadWorker(t)
	record := func(pgid int, ticks uint64, workerPID int, workerTicks uint64) string {
		d, name, err := f.write(ws, fgRecord{Version: foregroundVersion, PGID: pgid, StartTicks: ticks, WorkerPID: workerPID, WorkerTicks: workerTicks, Host: "sweep"})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		return filepath.Join(ws, ".shellcap", foregroundDir, name)
	}
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }

	killed, kticks := orphan(t)
	orphaned := record(killed, kticks, wpid, wticks)

	stalePID, staleTicks := deadWorker(t)
	stale := record(stalePID, staleTicks, wpid, wticks)

	reused, rticks := orphan(t)
	reusedRec := record(reused, rticks+1, wpid, wticks) // another process now has the PID

	mine, mticks := orphan(t)
	live := record(mine, mticks, f.self.PID, f.self.StartTicks)

	forgedPID, fticks := orphan(t)
	other, err := newForeground("sweep", t.TempDir(), slog.New(slog.DiscardHandler)) // another key
	if err != nil {
		t.Fatal(err)
	}
	d, name, err := other.write(ws, fgRecord{Version: foregroundVersion, PGID: forgedPID, StartTicks: fticks, WorkerPID: wpid, WorkerTicks: wticks})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	forged := filepath.Join(ws, ".shellcap", foregroundDir, name)
	junk := filepath.Join(ws, ".shellcap", foregroundDir, "junk.json")
	if err := os.WriteFile(junk, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}

	f.sweep(ws)

	for _, c := range []struct {
		what     string
		pgid     int
		rec      string
		alive    bool
		recorded bool
	}{
		{"orphaned group", killed, orphaned, false, false},
		{"stale record", 0, stale, false, false},
		{"reused PID", reused, reusedRec, true, false},
		{"live worker's command", mine, live, true, true},
		{"forged record", forgedPID, forged, true, true},
		{"unparseable record", 0, junk, false, true},
	} {
		if c.pgid != 0 {
			if got := groupAlive(c.pgid); got != c.alive {
				t.Errorf("%s: group %d alive %v after the sweep, want %v", c.what, c.pgid, got, c.alive)
			}
		}
		if got := exists(c.rec); got != c.recorded {
			t.Errorf("%s: record kept %v after the sweep, want %v", c.what, got, c.recorded)
		}
	}
}
