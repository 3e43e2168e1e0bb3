//go:build unix && (!linux || shellcap_portable)

package jobs

import (
	"errors"
	"syscall"
	"time"

	"github.com/shellcap/shellcap/internal/proc"
)

// alive reports whether process pid is running and is the one that
// started at ticks (not a zombie, not a newer process with a reused PID).
// A process that exists but whose entry cannot be read counts as alive:
// it is not declared lost on a guess (and pin refuses to signal it).
func alive(pid int, ticks uint64) bool {
	if pid <= 1 || errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	info, err := proc.Stat(pid)
	if err != nil {
		return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	}
	return info.StartTicks == ticks && info.State != 'Z' && info.State != 'X'
}

// pinned is a process identified by its PID and start time. Without
// pidfds the identity check and the signal are two steps: signal checks
// the identity again right before kill(2), so a PID reused since pin is
// only at risk in the instant between the two.
type pinned struct {
	pid   int
	ticks uint64
}

// pinPoll is how often waitExit looks at the process.
const pinPoll = 5 * time.Millisecond

// pin checks that pid is the process that started at ticks (and, when
// pgid > 0, still leads group pgid). It returns nil when the process is
// gone or is another one.
func pin(pid int, ticks uint64, pgid int) *pinned {
	if pid <= 1 {
		return nil
	}
	info, err := proc.Stat(pid)
	if err != nil || info.StartTicks != ticks || info.State == 'Z' || info.State == 'X' || (pgid > 0 && info.PGID != pgid) {
		return nil
	}
	return &pinned{pid: pid, ticks: ticks}
}

func (p *pinned) signal(sig syscall.Signal) error {
	if p.exited() {
		return nil
	}
	err := syscall.Kill(p.pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// waitExit waits up to d for the process to exit and reports whether it did.
func (p *pinned) waitExit(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if p.exited() {
			return true
		}
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		time.Sleep(min(left, pinPoll))
	}
}

// exited reports whether the process has exited (or its PID now names
// another process), without waiting.
func (p *pinned) exited() bool {
	if errors.Is(syscall.Kill(p.pid, 0), syscall.ESRCH) {
		return true
	}
	info, err := proc.Stat(p.pid)
	if err != nil {
		// The PID may be gone between kill and the read; if it is not,
		// the process cannot be told apart and counts as running.
		return errors.Is(syscall.Kill(p.pid, 0), syscall.ESRCH)
	}
	return info.StartTicks != p.ticks || info.State == 'Z' || info.State == 'X'
}

func (p *pinned) close() {}
