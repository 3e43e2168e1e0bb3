package shellcap

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMarkEachOnExec: the fallback for kernels without close_range marks a
// descriptor that lacks close-on-exec, as close_range does.
func TestMarkEachOnExec(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const fd = 78
	if err := unix.Dup2(int(f.Fd()), fd); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if flags, _ := unix.FcntlInt(fd, unix.F_GETFD, 0); flags&unix.FD_CLOEXEC != 0 {
		t.Fatal("calibration: dup2 left close-on-exec set")
	}
	if err := markEachOnExec(); err != nil {
		t.Fatal(err)
	}
	if flags, _ := unix.FcntlInt(fd, unix.F_GETFD, 0); flags&unix.FD_CLOEXEC == 0 {
		t.Fatal("descriptor 78 is still inherited by children")
	}
}
