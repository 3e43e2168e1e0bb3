package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Info describes one process read from /proc/PID/stat.
type Info struct {
	PID   int
	Comm  string // the executable name the kernel records (at most 15 bytes)
	State byte   // R, S, D, Z, T, ...
	PGID  int
	SID   int
	// StartTicks is the start time in clock ticks since boot; together with
	// PID it identifies a process across PID reuse.
	StartTicks uint64
	// ExitCode is the wait status of a zombie (State 'Z'), as waitpid
	// would report it; 0 otherwise.
	ExitCode int
}

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

// GroupMembers lists the live (non-zombie) processes in group pgid,
// leaving out the process exclude (pass 0 to keep all).
func GroupMembers(pgid, exclude int) ([]Info, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == exclude {
			continue
		}
		info, err := Stat(pid)
		if err != nil || info.PGID != pgid || info.State == 'Z' || info.State == 'X' {
			continue
		}
		out = append(out, info)
	}
	return out, nil
}

// Stat reads /proc/PID/stat.
func Stat(pid int) (Info, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Info{}, err
	}
	return parseStat(data)
}

var errBadStat = errors.New("proc: malformed stat line")

// parseStat parses "pid (comm) state ppid pgrp session ... starttime ...".
// comm may hold spaces and parentheses, so it ends at the last ')'.
func parseStat(data []byte) (Info, error) {
	open := bytes.IndexByte(data, '(')
	closing := bytes.LastIndexByte(data, ')')
	if open < 1 || closing < open {
		return Info{}, errBadStat
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(data[:open])))
	if err != nil {
		return Info{}, errBadStat
	}
	fields := bytes.Fields(data[closing+1:])
	// fields[0] is state (field 3); starttime is field 22, so fields[19].
	if len(fields) < 20 || len(fields[0]) != 1 {
		return Info{}, errBadStat
	}
	pgid, err1 := strconv.Atoi(string(fields[2]))
	sid, err2 := strconv.Atoi(string(fields[3]))
	start, err3 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Info{}, errBadStat
	}
	info := Info{
		PID:        pid,
		Comm:       string(data[open+1 : closing]),
		State:      fields[0][0],
		PGID:       pgid,
		SID:        sid,
		StartTicks: start,
	}
	// exit_code is field 52 (since Linux 3.5).
	if len(fields) >= 50 {
		info.ExitCode, _ = strconv.Atoi(string(fields[49]))
	}
	return info, nil
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
