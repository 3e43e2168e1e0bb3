package shellcap

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/shellcap/shellcap/internal/proc"
)

// leftGroup is a process group that a command left running.
type leftGroup struct {
	pgid    int
	members []proc.Info
	release func() // the guardian's watch (Options.DieWithProcess)
}

func (s *Shell) rememberLeftover(pgid int, members []proc.Info, release func()) {
	s.mu.Lock()
	s.leftover = append(s.leftover, leftGroup{pgid, members, release})
	s.mu.Unlock()
}

func leftoverNote(pgid int, members []proc.Info) string {
	return fmt.Sprintf("Background processes are still running: %s. Stop them with: kill -- -%d",
		memberList(members), pgid)
}

// memberList names up to five processes, "PID (name)", and how many more.
func memberList(members []proc.Info) string {
	const show = 5
	names := make([]string, 0, show)
	for i, m := range members {
		if i == show {
			names = append(names, fmt.Sprintf("and %d more", len(members)-show))
			break
		}
		names = append(names, fmt.Sprintf("%d (%s)", m.PID, m.Comm))
	}
	return strings.Join(names, ", ")
}

// stoppedNote is the note of a command whose background processes Run
// stopped (Request.StopBackground).
func stoppedNote(members []proc.Info) string {
	return "Background processes were stopped when the command ended: " + memberList(members) + "."
}

// stopLeftovers terminates the groups whose recorded members are still the
// same processes (same PID and start time), so a reused PID is never hit:
// SIGTERM to each, then SIGKILL to those that still have a live member
// once grace is over. It returns as soon as every group is gone (zombies
// count as gone: they run nothing, and whoever reaps them is not us).
func stopLeftovers(groups []leftGroup, grace time.Duration) {
	var live []int
	for _, g := range groups {
		for _, m := range g.members {
			if now, err := proc.Stat(m.PID); err == nil && now.StartTicks == m.StartTicks && now.PGID == g.pgid {
				live = append(live, g.pgid)
				_ = proc.SignalGroup(g.pgid, syscall.SIGTERM)
				break
			}
		}
	}
	deadline := time.Now().Add(grace)
	for _, pgid := range live {
		for groupAlive(pgid) && time.Now().Before(deadline) {
			time.Sleep(groupPoll)
		}
		if groupAlive(pgid) {
			_ = proc.SignalGroup(pgid, syscall.SIGKILL)
		}
	}
	for _, g := range groups {
		if g.release != nil {
			g.release()
		}
	}
}

// groupAlive reports whether group pgid has a member that has not exited.
func groupAlive(pgid int) bool {
	m, err := proc.GroupMembers(pgid, 0)
	if err != nil {
		return proc.GroupExists(pgid)
	}
	return len(m) > 0
}
