//go:build linux

package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestRemoveStaleDirs: a directory whose creating PID is gone, or now
// belongs to a process started after it was made, is removed; one whose
// creator may live is kept.
func TestRemoveStaleDirs(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	mk := func(pid int, age time.Duration) string {
		d := filepath.Join(tmp, dirPrefix+strconv.Itoa(pid)+"-x"+strconv.Itoa(int(age)))
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(d, at, at)
		return d
	}
	// A process started now: a directory older than it is not its own.
	young := exec.Command("sleep", "30")
	if err := young.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { young.Process.Kill(); young.Wait() }()
	time.Sleep(50 * time.Millisecond)

	goneDir := mk(dead.Process.Pid, 0)
	reused := mk(young.Process.Pid, time.Hour)
	parent := mk(os.Getppid(), 0)     // alive, started before the directory
	own := mk(os.Getpid(), time.Hour) // ours: never touched
	notOurs := filepath.Join(tmp, "other-"+strconv.Itoa(dead.Process.Pid))
	os.Mkdir(notOurs, 0o700)
	link := filepath.Join(tmp, dirPrefix+"999999999-link")
	os.Symlink(parent, link)

	removeStaleDirs(tmp)
	for _, d := range []string{goneDir, reused} {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("stale %s kept", d)
		}
	}
	for _, d := range []string{parent, own, notOurs, link} {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}
