//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// WaitExited blocks until the child pid has exited, without reaping it: the
// zombie keeps the PID (and so its process group ID) reserved until the
// caller reaps it, so signals sent to the group cannot reach a stranger.
// It waits on a kqueue for the process's NOTE_EXIT, which reaps nothing.
func WaitExited(pid int) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return err
	}
	defer unix.Close(kq)
	change := make([]unix.Kevent_t, 1)
	unix.SetKevent(&change[0], pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	change[0].Fflags = unix.NOTE_EXIT
	events := make([]unix.Kevent_t, 1)
	for {
		// Adding the filter again after an interruption is harmless.
		n, err := unix.Kevent(kq, change, events, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ESRCH):
			// The process exited before the filter was attached: the
			// caller has not reaped it, so it is a zombie now.
			return nil
		case err != nil:
			return err
		case n > 0 && events[0].Flags&unix.EV_ERROR != 0:
			if errno := unix.Errno(events[0].Data); errno != unix.ESRCH {
				return errno
			}
			return nil
		case n > 0:
			return nil
		}
	}
}
