package shellcap

import (
	"math"
	"strconv"
	"strings"

	"github.com/shellcap/shellcap/internal/core"
)

// maxArgLen is the kernel's limit on one argv string (MAX_ARG_STRLEN).
const maxArgLen = 32 * 4096

// limitsPrelude renders the ulimit commands that the shell runs before the
// command, so the limits bind the command and its children and never the
// host process. Limits the host already enforces more strictly are left
// alone (an unprivileged shell could not raise them anyway). It also
// returns warnings for limits the kernel will not enforce.
func limitsPrelude(o *Options, shellName string) (string, []string, error) {
	fileUnit := int64(512) // POSIX shells, and bash in POSIX mode (sh)
	if shellName == "bash" {
		fileUnit = 1024
	}
	type lim struct {
		flag  string // ulimit's flag, which names the resource
		value uint64 // in the flag's unit
		bytes uint64 // the same in the kernel's unit, to compare
	}
	var lims []lim
	if o.MaxFileBytes > 0 {
		blocks := ceilDiv(o.MaxFileBytes, fileUnit)
		lims = append(lims, lim{"-f", uint64(blocks), uint64(blocks * fileUnit)})
	}
	if o.MemoryLimit > 0 {
		kib := ceilDiv(o.MemoryLimit, 1024)
		lims = append(lims, lim{"-v", uint64(kib), uint64(kib * 1024)})
	}
	var cpu string
	if o.CPUTime > 0 {
		// The soft limit sends SIGXCPU, which ends the process and names
		// the cause; the hard limit, a second later, SIGKILLs a process
		// that ignores it. (With both equal the kernel sends only
		// SIGKILL, which could be anyone's.)
		secs := uint64(math.Ceil(o.CPUTime.Seconds()))
		if !hostLimitAtMost("-t", secs) {
			cpu = "ulimit -S -t " + strconv.FormatUint(secs, 10) + " && ulimit -H -t " + strconv.FormatUint(secs+cpuHardExtra, 10)
			if hostLimitAtMost("-t", secs+cpuHardExtra) {
				cpu = "ulimit -S -t " + strconv.FormatUint(secs, 10)
			}
		}
	}
	var warnings []string
	if o.MemoryLimit > 0 && memoryLimitUnenforced != "" {
		warnings = append(warnings, memoryLimitUnenforced)
	}
	if o.MaxProcesses > 0 {
		lims = append(lims, lim{"-u", uint64(o.MaxProcesses), uint64(o.MaxProcesses)})
		if core.NPROCUnenforced(o.MaxProcesses) {
			warnings = append(warnings, core.MaxProcessesUnenforced)
		}
	}
	var cmds []string
	for _, l := range lims {
		if hostLimitAtMost(l.flag, l.bytes) {
			continue // the host limit is already at least as strict
		}
		cmds = append(cmds, "ulimit "+l.flag+" "+strconv.FormatUint(l.value, 10))
	}
	if cpu != "" {
		cmds = append(cmds, cpu)
	}
	if len(cmds) == 0 {
		return "", warnings, nil
	}
	return "{ " + strings.Join(cmds, " && ") + "; } || { echo 'shellcap: unable to apply resource limits' >&2; exit 125; }; ", warnings, nil
}

// cpuHardExtra is how many seconds the hard CPU limit lies beyond the
// soft one.
const cpuHardExtra = 1

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// limitNotes explain what the resource limits did to a command that
// ran (core.LimitNotes, which every executor shares).
func (s *Shell) limitNotes(res *Result, out *outcome) []string {
	o := &s.opts
	if o.MaxFileBytes == 0 && o.MemoryLimit == 0 && o.CPUTime == 0 && o.MaxProcesses == 0 {
		return nil
	}
	limits := core.Settings{MaxFileBytes: o.MaxFileBytes, MemoryLimit: o.MemoryLimit, CPUTime: o.CPUTime, MaxProcesses: o.MaxProcesses}
	return core.LimitNotes(limits, core.LimitOutcome{
		ExitCode: res.ExitCode,
		Signal:   res.Signal,
		Stderr:   res.Stderr,
		CPU:      core.CPUOf(out.state),
		Stopped:  out.timedOut || out.canceled || out.limitHit,
	})
}
