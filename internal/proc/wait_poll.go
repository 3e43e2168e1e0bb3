//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package proc

import (
	"syscall"
	"time"
)

// WaitExited blocks until the child pid has exited, without reaping it.
// This platform offers no exit notification that leaves the zombie in
// place, so it polls the process table.
func WaitExited(pid int) error {
	for {
		info, err := Stat(pid)
		if err != nil {
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				return nil
			}
			return err
		}
		if info.gone() {
			return nil
		}
		time.Sleep(pollInterval)
	}
}
