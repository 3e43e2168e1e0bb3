package jobs

import (
	"syscall"
	"time"
)

// supervisorStopSlack is how long, beyond the grace period, Stop waits for
// a supervisor to stop its command and record the outcome.
const supervisorStopSlack = 30 * time.Second

// kill stops a running job. The supervisor, if it is the process that
// started at the recorded time, is asked (through a pidfd, so a reused PID
// is never signalled) to stop the command: SIGTERM to the command's group,
// the grace period, SIGKILL; it then records the exit code. If the
// supervisor is gone or does not finish, the command's group is stopped
// directly, again only after checking that its leader is the recorded
// process.
func (m *Manager) kill(dir string, st *status) {
	if sup := pin(st.SupervisorPID, st.SupervisorStartTicks, 0); sup != nil {
		if sup.signal(syscall.SIGTERM) == nil {
			m.waitRecorded(sup, dir, m.opts.KillGrace+supervisorStopSlack)
		}
		if !m.recorded(dir) {
			// The supervisor died or hangs without recording the end.
			killCommand(st, m.opts.KillGrace)
			if !sup.exited() {
				_ = sup.signal(syscall.SIGKILL)
				sup.waitExit(5 * time.Second)
			}
		}
		sup.close()
		m.reap()
		return
	}
	killCommand(st, m.opts.KillGrace)
}

// recorded reports whether the job's status says it finished.
func (m *Manager) recorded(dir string) bool {
	st, _, err := readStatus(m.key, dir)
	return err == nil && st.finished()
}

// waitRecorded waits until the supervisor has recorded the job finished
// (or has exited) and reports whether it did so within d.
func (m *Manager) waitRecorded(sup *pinned, dir string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	poll := 2 * time.Millisecond
	for {
		if m.recorded(dir) {
			return true
		}
		if sup.waitExit(poll) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		poll = min(2*poll, 50*time.Millisecond)
	}
}

// killCommand stops the command's process group directly: SIGTERM, grace,
// SIGKILL. It does nothing unless the recorded leader is alive and still
// the process that started at the recorded time, leading the recorded
// group: while the leader lives, its group ID cannot name another group.
func killCommand(st *status, grace time.Duration) {
	leader := pin(st.PID, st.StartTicks, st.PGID)
	if leader == nil || st.PGID <= 1 {
		return
	}
	defer leader.close()
	_ = killPID(-st.PGID, syscall.SIGTERM)
	if leader.waitExit(grace) {
		return
	}
	_ = killPID(-st.PGID, syscall.SIGKILL)
	leader.waitExit(5 * time.Second)
}
