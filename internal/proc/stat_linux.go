//go:build linux && !shellcap_portable

package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

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
		if err != nil || info.PGID != pgid || info.gone() {
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
	ppid, err0 := strconv.Atoi(string(fields[1]))
	pgid, err1 := strconv.Atoi(string(fields[2]))
	_, err2 := strconv.Atoi(string(fields[3]))
	start, err3 := strconv.ParseUint(string(fields[19]), 10, 64)
	if err0 != nil || err1 != nil || err2 != nil || err3 != nil {
		return Info{}, errBadStat
	}
	info := Info{
		PID:        pid,
		PPID:       ppid,
		Comm:       string(data[open+1 : closing]),
		State:      fields[0][0],
		PGID:       pgid,
		StartTicks: start,
	}
	// exit_code is field 52 (since Linux 3.5).
	if len(fields) >= 50 {
		info.ExitCode, _ = strconv.Atoi(string(fields[49]))
	}
	return info, nil
}

// TicksAt converts a recent time to clock ticks since boot, the unit of
// StartTicks from /proc.
func TicksAt(t time.Time) (uint64, bool) {
	data, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	var up float64
	if _, err := fmt.Sscan(string(data), &up); err != nil {
		return 0, false
	}
	at := up - time.Since(t).Seconds()
	if at < 0 {
		return 0, true
	}
	return uint64(at * clockTicks), true
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times on Linux.
const clockTicks = 100

// HasChild reports whether process pid's main thread has a child.
func HasChild(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	return err == nil && len(bytes.TrimSpace(data)) > 0
}
