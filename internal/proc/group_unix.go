//go:build unix

package proc

import (
	"errors"
	"syscall"
	"time"
)

// SignalGroup sends sig to every process in group pgid. A group that no
// longer exists is not an error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return errors.New("proc: refusing to signal process group <= 1")
	}
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// GroupExists reports whether any process, zombies included, is in group pgid.
func GroupExists(pgid int) bool {
	return pgid > 1 && syscall.Kill(-pgid, 0) == nil
}

// pollInterval is how often Terminate looks at the group.
const pollInterval = 10 * time.Millisecond

// Terminate stops process group pgid in two phases: SIGTERM, then SIGKILL
// once grace is over, unless every process in the group exited before.
// exited, when not nil, reports the exit of the group's leader, which the
// caller leaves unreaped until Terminate returns, so that the group ID
// cannot be reused while it is being signalled.
func Terminate(pgid int, grace time.Duration, exited <-chan error) {
	_ = SignalGroup(pgid, syscall.SIGTERM)
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	leaderDone := exited == nil
	for {
		select {
		case <-exited:
			leaderDone = true
			exited = nil
		case <-tick.C:
		case <-deadline.C:
			_ = SignalGroup(pgid, syscall.SIGKILL)
			if !leaderDone {
				<-exited
			}
			return
		}
		if leaderDone {
			if m, err := GroupMembers(pgid, pgid); err == nil && len(m) == 0 {
				return
			}
		}
	}
}
