package sandbox

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/proc"
)

// A command whose exec fails after the launcher forked it (a file the
// kernel cannot execute, a directory that vanished in between) exits at
// once with status 253 as a child of this process, and the launcher
// cannot name it: the fork's PID is lost with the error. reapFailedStart
// finds and reaps that zombie, so failed starts do not pile up: our own
// child, a zombie, in a nested pid namespace, exited with 253, started no
// earlier than the request (requests are serialized, so no other start
// of this launcher overlaps).

// failedExecStatus is the exit status of a forked child whose exec failed.
const failedExecStatus = 253

// uptimeTicks returns the time since boot in clock ticks, the unit of a
// process's start time.
func uptimeTicks() uint64 {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	secs, _, _ := strings.Cut(string(b), " ")
	whole, frac, _ := strings.Cut(secs, ".")
	w, err1 := strconv.ParseUint(whole, 10, 64)
	f, err2 := strconv.ParseUint((frac + "00")[:2], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return w*100 + f // USER_HZ is 100 on Linux
}

// reapFailedStart reaps the zombie a failed start left, if any.
func reapFailedStart(since uint64) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(f)
			if err == nil && isFailedStart(pid, since) {
				var info unix.Siginfo
				_ = unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG, nil)
			}
		}
	}
}

// isFailedStart reports whether pid is a zombie of a nested pid namespace
// that exited with failedExecStatus and started at or after since.
func isFailedStart(pid int, since uint64) bool {
	info, err := proc.Stat(pid)
	if err != nil || info.State != 'Z' || info.StartTicks < since || info.ExitCode != failedExecStatus<<8 {
		return false
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "NSpid:"); ok {
			return len(strings.Fields(v)) > 1
		}
	}
	return false
}
