package proc

import (
	"bytes"
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"
)

// Darwin has no /proc: the process table is read through sysctl
// kern.proc, and StartTicks are microseconds since the Unix epoch.

var errNoProcess = fmt.Errorf("proc: no such process: %w", fs.ErrNotExist)

// Stat reads one process's entry from sysctl kern.proc.pid.
func Stat(pid int) (Info, error) {
	if pid <= 0 {
		return Info{}, errNoProcess
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		// A PID with no process answers with an empty entry (EIO here).
		return Info{}, errNoProcess
	}
	if int(k.Proc.P_pid) != pid {
		return Info{}, errNoProcess
	}
	return fromKinfo(k), nil
}

// GroupMembers lists the live (non-zombie) processes in group pgid,
// leaving out the process exclude (pass 0 to keep all).
func GroupMembers(pgid, exclude int) ([]Info, error) {
	if pgid <= 0 {
		return nil, nil
	}
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil, err
	}
	var out []Info
	for i := range ks {
		info := fromKinfo(&ks[i])
		if info.PID == exclude || info.PGID != pgid || info.gone() {
			continue
		}
		out = append(out, info)
	}
	return out, nil
}

// HasChild reports whether process pid has a child.
func HasChild(pid int) bool {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return false
	}
	for i := range ks {
		if int(ks[i].Eproc.Ppid) == pid {
			return true
		}
	}
	return false
}

// TicksAt converts a time to StartTicks' unit.
func TicksAt(t time.Time) (uint64, bool) { return uint64(t.UnixMicro()), true }

// darwinStates maps p_stat (SIDL, SRUN, SSLEEP, SSTOP, SZOMB) to the
// letters ps(1) and /proc use.
var darwinStates = [...]byte{1: 'R', 2: 'R', 3: 'S', 4: 'T', 5: 'Z'}

func fromKinfo(k *unix.KinfoProc) Info {
	p := &k.Proc
	comm := p.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	state := byte('?')
	if s := int(p.P_stat); s >= 0 && s < len(darwinStates) && darwinStates[s] != 0 {
		state = darwinStates[s]
	}
	info := Info{
		PID:        int(p.P_pid),
		PPID:       int(k.Eproc.Ppid),
		PGID:       int(k.Eproc.Pgid),
		Comm:       string(comm),
		State:      state,
		StartTicks: uint64(p.P_starttime.Sec)*1e6 + uint64(p.P_starttime.Usec),
	}
	if state == 'Z' {
		info.ExitCode = int(p.P_xstat)
	}
	return info
}
