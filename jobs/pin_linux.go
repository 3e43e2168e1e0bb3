//go:build linux && !shellcap_portable

package jobs

import (
	"errors"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/proc"
)

// alive reports whether process pid is running and is the one that
// started at ticks (not a zombie, not a newer process with a reused PID).
func alive(pid int, ticks uint64) bool {
	if pid <= 1 {
		return false
	}
	info, err := proc.Stat(pid)
	return err == nil && info.StartTicks == ticks && info.State != 'Z' && info.State != 'X'
}

// pinned is a process held by a pidfd, so that signals reach it and no
// later process that reuses its PID.
type pinned struct {
	fd  int
	pid int
}

// pin opens a pidfd for pid and checks, once it is held, that pid is the
// process that started at ticks (and, when pgid > 0, still leads group
// pgid). It returns nil when the process is gone or is another one.
func pin(pid int, ticks uint64, pgid int) *pinned {
	if pid <= 1 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	info, err := proc.Stat(pid)
	if err != nil || info.StartTicks != ticks || info.State == 'Z' || info.State == 'X' || (pgid > 0 && info.PGID != pgid) {
		unix.Close(fd)
		return nil
	}
	return &pinned{fd: fd, pid: pid}
}

func (p *pinned) signal(sig syscall.Signal) error {
	err := unix.PidfdSendSignal(p.fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// waitExit waits up to d for the process to exit and reports whether it did.
func (p *pinned) waitExit(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		ms := max(0, int(time.Until(deadline)/time.Millisecond))
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return false
		case n > 0:
			return true
		case ms == 0 || !time.Now().Before(deadline):
			return false
		}
	}
}

// exited reports whether the process has exited, without waiting.
func (p *pinned) exited() bool {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

func (p *pinned) close() { unix.Close(p.fd) }
