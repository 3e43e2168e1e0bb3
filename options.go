package shellcap

import (
	"log/slog"
	"time"

	"github.com/shellcap/shellcap/policy"
)

// Defaults used when the matching [Options] field is zero.
const (
	DefaultTimeout         = 30 * time.Second
	DefaultMaxTimeout      = 10 * time.Minute
	DefaultKillGrace       = 2 * time.Second
	DefaultMaxOutputBytes  = 64 << 20
	DefaultMaxOutputChars  = 50_000
	DefaultOutputRetention = 24 * time.Hour
)

// Budget is how much of one output stream a result keeps: Head characters
// (Unicode code points) of its beginning and Tail of its end. Both must be
// zero or more; the zero Budget means the default.
type Budget struct {
	Head, Tail int
}

// IsZero reports whether b is the zero Budget (the default).
func (b Budget) IsZero() bool { return b == Budget{} }

// Options configures a [Shell]. The zero value is the safe default: the
// current directory as workspace, a scrubbed environment, a 30 s timeout,
// output capped for the model, no persistent working directory. Every field
// documents what its zero value means. [New] copies the options, so changing
// them afterwards has no effect on the Shell.
type Options struct {
	// Workspace is the directory commands run in; it must exist. Empty means
	// the current directory. Relative paths are made absolute at New.
	Workspace string

	// ReadOnly declares the workspace read-only: the Shell then offers no
	// command execution and Run returns ErrReadOnlyWorkspace. A workspace
	// that the host process cannot write to is treated as read-only too.
	ReadOnly bool

	// ShellPath is the POSIX shell binary that runs each command as
	// `ShellPath -c COMMAND`, a path or a name looked up in PATH. Empty
	// means bash from PATH, or /bin/sh when bash is missing.
	ShellPath string

	// DefaultTimeout bounds a Request that sets no Timeout. Zero means 30 s.
	DefaultTimeout time.Duration

	// MaxTimeout is the largest Timeout a Request may ask for; larger ones
	// are refused with a message for the model. Zero means 10 minutes.
	MaxTimeout time.Duration

	// KillGrace is how long a timed-out or cancelled command, or one over
	// MaxOutputBytes, has between SIGTERM and SIGKILL. Zero means 2 s.
	KillGrace time.Duration

	// MaxOutputBytes is a hard cap on the bytes read from stdout and stderr
	// together; a command that prints more is stopped like a timed-out one
	// (SIGTERM to its process group, KillGrace, SIGKILL) and the result
	// says so.
	// Zero means 64 MiB; a negative value means no cap.
	MaxOutputBytes int64

	// MaxOutputChars caps the text the model reads (Result.Text), counted
	// in Unicode code points. Zero means 50,000; negative means no cap.
	MaxOutputChars int

	// HeadAndTail makes an over-long Result.Text keep its beginning and its
	// end instead of only its end. Zero (false) keeps the end, where errors,
	// exit codes and notes are.
	HeadAndTail bool

	// StdoutBudget and StderrBudget bound what Result.Stdout and
	// Result.Stderr keep of each stream, in characters of its beginning
	// and of its end; the middle of a longer stream is replaced by a line
	// "[... N bytes omitted ...]" (and kept in a file, see
	// DisableOutputFiles). For example Budget{Head: 2000, Tail: 8000} for
	// stdout and Budget{Head: 2000, Tail: 2000} for stderr, as gptme
	// does. MaxOutputChars still caps the whole text. The zero Budget
	// keeps as much of each end as MaxOutputChars can show.
	StdoutBudget Budget
	StderrBudget Budget

	// KeepANSI keeps ANSI escape sequences (colours, cursor movement) in
	// what the model reads. Zero (false) strips them.
	KeepANSI bool

	// DisableOutputFiles turns off keeping the complete output of a
	// truncated command under <workspace>/.shellcap/output. Zero (false)
	// keeps it, so the model can search it instead of running the command
	// again.
	DisableOutputFiles bool

	// OutputRetention is how long kept output files live. Zero means 24 h.
	OutputRetention time.Duration

	// MaxFileBytes limits the size of each file a command writes
	// (RLIMIT_FSIZE), rounded up to the shell's ulimit unit (1 KiB for
	// bash, 512 bytes for dash). A process that writes beyond it is killed
	// (SIGXFSZ); the result says so, also when the script went on. Zero
	// means no limit.
	MaxFileBytes int64

	// MemoryLimit limits each process's address space in bytes (RLIMIT_AS),
	// rounded up to 1 KiB. Zero means no limit.
	MemoryLimit int64

	// CPUTime limits each process's CPU time (RLIMIT_CPU), rounded up to a
	// whole second: the process then gets SIGXCPU, and SIGKILL a second
	// later if it ignores that. Results blame the limit only for what it
	// ended. Zero means no limit.
	CPUTime time.Duration

	// MaxProcesses limits the processes of the command's user (RLIMIT_NPROC).
	// The kernel does not enforce it for root; results then say so. Zero
	// means no limit.
	MaxProcesses int

	// Env adds variables to the command environment. Names must be valid
	// shell names and values must hold no NUL byte. Nil adds nothing.
	Env map[string]string

	// PassEnv names further host variables to pass through, beyond
	// HostEnvAllowlist(). Nil passes only the allowlist.
	PassEnv []string

	// DeniedEnvPatterns removes every variable whose name matches one of
	// these globs (path.Match syntax, case-sensitive) from the final
	// environment, whatever its source. See LLMAPIKeyEnvPatterns(). Nil
	// removes nothing beyond the host allowlist.
	DeniedEnvPatterns []string

	// PersistCwd makes `cd` stick across calls: after a command exits 0 in
	// a directory inside the workspace, the next command starts there.
	// When the remembered directory was removed (or replaced by something
	// that is not a directory), the next call is refused with a message
	// naming it (Result.Err matches ErrWorkdirGone), so that a command
	// aimed at it never runs elsewhere; the call after starts in the
	// workspace root. Zero (false) starts every command in the workspace
	// root.
	PersistCwd bool

	// Policy decides which commands may run, analysing the command with a
	// real bash parser: every command in lists, pipelines, substitutions,
	// `bash -c` strings and behind wrappers such as env, sudo or xargs.
	// The zero value denies rm, rmdir, unlink, shred, mkfs, dd, format,
	// shutdown, reboot, halt, poweroff and init (and what does the same,
	// such as find -delete and systemctl poweroff), and interactive
	// programs. See package policy.
	Policy policy.Rules

	// Approve is asked about commands that need approval (see
	// ApprovalMode). Nil means no one can approve: such commands are
	// refused with the policy's reason.
	Approve Approver

	// ApprovalMode says which commands go to Approve. The zero value,
	// ApproveAsk, sends only those the policy answers "ask" for.
	ApprovalMode ApprovalMode

	// AcknowledgeUnsafe must be set to use ApproveNone: the model's
	// commands then run with no human approval and no sandbox.
	AcknowledgeUnsafe bool

	// Sandbox confines every command Run starts (see package sandbox,
	// whose Confiner builds one); results then carry what it enforces in
	// Result.Sandbox. Nil runs commands with the host user's rights. New
	// fails when the sandbox cannot be had on this machine. With
	// PersistCwd, the sandbox must be a LaunchingConfiner (as
	// sandbox.Confiner is): the shell then reports its final directory on
	// an inherited descriptor (63), since the directory record's own place
	// is out of the sandbox's reach.
	Sandbox Confiner

	// DieWithProcess makes commands die with this process even when it is
	// killed with SIGKILL: New starts a guardian process (this binary,
	// re-executed) that kills the whole process group of every command
	// still running, and of every shell a session keeps, when this process
	// ends; it never signals a reused process ID. False (the default)
	// starts no guardian: commands outlive a process that dies without
	// calling Close. Linux only; New fails elsewhere. Background jobs (see
	// package jobs) are not covered, by design.
	DieWithProcess bool

	// Logger receives debug and warning logs. Nil discards them.
	Logger *slog.Logger
}
