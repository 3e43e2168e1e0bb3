package shellcap

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/shellcap/shellcap/internal/textfmt"
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
	if o.CPUTime > 0 {
		secs := uint64(math.Ceil(o.CPUTime.Seconds()))
		lims = append(lims, lim{"-t", secs, secs})
	}
	var warnings []string
	if o.MemoryLimit > 0 && memoryLimitUnenforced != "" {
		warnings = append(warnings, memoryLimitUnenforced)
	}
	if o.MaxProcesses > 0 {
		lims = append(lims, lim{"-u", uint64(o.MaxProcesses), uint64(o.MaxProcesses)})
		if os.Geteuid() == 0 {
			warnings = append(warnings, "MaxProcesses is not enforced: the kernel exempts root from RLIMIT_NPROC")
		}
	}
	var cmds []string
	for _, l := range lims {
		if hostLimitAtMost(l.flag, l.bytes) {
			continue // the host limit is already at least as strict
		}
		cmds = append(cmds, "ulimit "+l.flag+" "+strconv.FormatUint(l.value, 10))
	}
	if len(cmds) == 0 {
		return "", warnings, nil
	}
	return "{ " + strings.Join(cmds, " && ") + "; } || { echo 'shellcap: unable to apply resource limits' >&2; exit 125; }; ", warnings, nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// limitNotes explain a failure while a resource limit was in force.
func (s *Shell) limitNotes(res *Result) []string {
	var notes []string
	if l := s.opts.MaxFileBytes; l > 0 {
		limit := strconv.FormatInt(l, 10)
		if res.Signal == "SIGXFSZ" || res.ExitCode == 128+sigXFSZ {
			notes = append(notes, "File-size limit exceeded: max_file_bytes="+limit+". Reduce file output before retrying.")
		} else {
			notes = append(notes, "Command failed with max_file_bytes="+limit+"; file writes may have reached the per-file limit.")
		}
	}
	if s.opts.CPUTime > 0 && !res.OutputLimitExceeded && (res.Signal == "SIGXCPU" || res.Signal == "SIGKILL" ||
		res.ExitCode == 128+sigXCPU || res.ExitCode == 128+sigKILL) {
		notes = append(notes, "CPU time limit reached: cpu_time="+textfmt.FormatSeconds(s.opts.CPUTime)+". Make the work smaller or ask for a higher limit.")
	}
	if l := s.opts.MemoryLimit; l > 0 {
		notes = append(notes, fmt.Sprintf("Command failed with memory_limit=%d bytes; allocations may have reached the address-space limit.", l))
	}
	return notes
}
