package jobs

import (
	"encoding/json"
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
		writeStopRequest(m.key, dir, m.opts.KillGrace)
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

// stopRequest is what a Stop asks of the supervisor: this Manager's grace
// (`shellcap stop --kill-grace 200ms` stops a job that `shellcap start`
// started with the default).
type stopRequest struct {
	GraceMS int64 `json:"grace_ms"`
}

// maxStopGrace bounds the grace a stop request may ask for.
const maxStopGrace = time.Hour

// writeStopRequest records, signed, the grace a Stop asks for, before it
// signals the supervisor. It is best effort: without it the supervisor
// uses the starting Manager's grace.
func writeStopRequest(key recordKey, dir string, grace time.Duration) {
	data, _ := json.Marshal(stopRequest{GraceMS: grace.Milliseconds()})
	d, err := openJobDir(dir)
	if err != nil {
		return
	}
	defer d.Close()
	_ = d.WriteFileAtomic(stopName, key.sign(dir, data), 0o600)
}

// readStopRequest returns the grace a Stop asked for, if a valid signed
// request is there.
func readStopRequest(key recordKey, dir string) (time.Duration, bool) {
	d, err := openJobDir(dir)
	if err != nil {
		return 0, false
	}
	defer d.Close()
	data, err := d.ReadFile(stopName, 4096)
	if err != nil {
		return 0, false
	}
	body, err := key.verify(dir, data)
	if err != nil {
		return 0, false
	}
	var r stopRequest
	if json.Unmarshal(body, &r) != nil || r.GraceMS <= 0 || time.Duration(r.GraceMS)*time.Millisecond > maxStopGrace {
		return 0, false
	}
	return time.Duration(r.GraceMS) * time.Millisecond, true
}
