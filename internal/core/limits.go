package core

import (
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/textfmt"
)

// Signal numbers of the resource limits, the same on Linux and the BSDs.
const (
	sigXCPU = 24
	sigXFSZ = 25
	sigKILL = 9
)

// xfszReport is what shells print on stderr for a foreground child that
// SIGXFSZ killed (strsignal's text: bash adds "line N: PID" before it and
// the command after, dash prints it alone), also for a pipeline element
// whose exit status is lost and when the script goes on.
const xfszReport = "File size limit exceeded"

// LimitOutcome is what [LimitNotes] looks at in a finished command.
type LimitOutcome struct {
	ExitCode int
	Signal   string // e.g. "SIGKILL"; "" when no signal ended the shell
	// Stderr is the command's captured stderr (the shell's own reports of
	// its children are there).
	Stderr string
	// CPU is the user and system CPU time of the shell and the children
	// it waited for (os.ProcessState's); negative when unknown.
	CPU time.Duration
	// Stopped says the executor stopped the command (a timeout, a cancel,
	// the output cap): a SIGKILL is then its own, not a limit's.
	Stopped bool
}

// LimitNotes explains what the resource limits of s did to a command, in
// the order a result shows them:
//
//   - MaxFileBytes: the shell killed by SIGXFSZ; or a child killed by it
//     while the script went on (the shell's report on stderr); otherwise,
//     after a failure, that file writes may have reached the limit;
//   - CPUTime: the shell ended by SIGXCPU (the soft limit), or by SIGKILL
//     (the hard limit) with at least the soft limit's CPU time used:
//     never for a SIGKILL the executor sent or one that came before the
//     limit could;
//   - MemoryLimit: after a failure, that allocations may have reached it;
//   - MaxProcesses: on every result, when the kernel does not enforce it
//     ([NPROCUnenforced]).
func LimitNotes(s Settings, o LimitOutcome) []string {
	var notes []string
	failed := o.ExitCode != 0
	if l := s.MaxFileBytes; l > 0 {
		limit := strconv.FormatInt(l, 10)
		switch {
		case o.Signal == "SIGXFSZ" || o.ExitCode == 128+sigXFSZ:
			notes = append(notes, FileLimitNote(l, true))
		case strings.Contains(o.Stderr, xfszReport):
			notes = append(notes, "A process was killed by the file-size limit (max_file_bytes="+limit+") and the command went on: a file it wrote stops at the limit. Reduce file output before retrying.")
		case failed:
			notes = append(notes, FileLimitNote(l, false))
		}
	}
	if s.CPUTime > 0 && !o.Stopped && cpuLimitEnded(s.CPUTime, o) {
		notes = append(notes, "CPU time limit reached: cpu_time="+textfmt.FormatSeconds(s.CPUTime)+". Make the work smaller or ask for a higher limit.")
	}
	if l := s.MemoryLimit; l > 0 && failed {
		notes = append(notes, "Command failed with memory_limit="+strconv.FormatInt(l, 10)+" bytes; allocations may have reached the address-space limit.")
	}
	if NPROCUnenforced(s.MaxProcesses) {
		notes = append(notes, MaxProcessesUnenforced)
	}
	return notes
}

// cpuLimitEnded reports whether RLIMIT_CPU is what ended the shell. The
// soft limit sends SIGXCPU (the Shell's prelude sets the hard limit a
// second above it); a SIGKILL counts only when the CPU time used reaches
// the soft limit as the shell sets it (whole seconds), as the hard limit
// kills no sooner, less what the accounting lags behind the kernel's
// check.
func cpuLimitEnded(limit time.Duration, o LimitOutcome) bool {
	if o.Signal == "SIGXCPU" || o.ExitCode == 128+sigXCPU {
		return true
	}
	if o.Signal != "SIGKILL" && o.ExitCode != 128+sigKILL {
		return false
	}
	bound := time.Duration(math.Ceil(limit.Seconds())) * time.Second
	return o.CPU >= bound-cpuSlack
}

// cpuSlack allows for CPU time accounting (rusage) that lags the limit's
// check: up to a quarter of a second was seen.
const cpuSlack = 300 * time.Millisecond

// MaxProcessesUnenforced is the note, and the Shell's warning, for a
// MaxProcesses the kernel does not enforce.
const MaxProcessesUnenforced = "MaxProcesses is not enforced: the kernel exempts root from RLIMIT_NPROC"

// NPROCUnenforced reports whether a MaxProcesses of n (zero: none) cannot
// bind: this process runs as root, whom the kernel exempts from
// RLIMIT_NPROC.
func NPROCUnenforced(n int) bool { return n > 0 && os.Geteuid() == 0 }

// CPUOf returns the user and system CPU time of a waited-for process and
// the children it waited for; -1 when state is nil.
func CPUOf(state *os.ProcessState) time.Duration {
	if state == nil {
		return -1
	}
	return state.UserTime() + state.SystemTime()
}
