package proc

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// WaitExited blocks until the child pid has exited, without reaping it: the
// zombie keeps the PID (and so its process group ID) reserved until the
// caller reaps it, so signals sent to the group cannot reach a stranger.
func WaitExited(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
