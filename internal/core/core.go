// Package core is the seam between package shellcap and the executors built
// on it (session, jobs, container): the settings a Shell hands down and the
// steps of the command pipeline only the Shell can perform (input checks,
// policy and approval, timeout validation, preparing and starting a
// process in the Shell's sandbox). Package shellcap registers the
// accessor; executors call [Of].
//
// Beside the Shell's steps it holds the pure pieces every executor shares,
// so that none re-implements them: [ExitStatus] (exit code and signal from
// a wait status), [KeepBytes] and [Budget.KeepBytes] (how much of each
// output stream to hold in memory), the notes [CanceledNote] and
// [OutputLimitNote], and [LimitNotes] (what the resource limits did to a
// command: a file-size kill, also of a child while the script went on; the
// CPU limit only when it ended the command; an unenforceable process
// limit). Shell.Run uses exactly these.
//
// Keeping this out of the root package's exported API means a reader of
// `go doc shellcap` meets the Shell, its Options and Run first, not the
// hooks executors need.
package core

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"time"
)

// Settings are a Shell's resolved settings (defaults filled in) that
// executors inherit: a zero field of an executor's own options means the
// value here.
type Settings struct {
	Workspace      string // absolute, symlinks resolved
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	KillGrace      time.Duration
	MaxOutputBytes int64 // < 0: no cap
	MaxOutputChars int   // < 0: no cap
	HeadAndTail    bool
	StdoutBudget   Budget // zero: the default sizing (KeepBytes)
	StderrBudget   Budget
	KeepANSI       bool
	MaxFileBytes   int64
	MemoryLimit    int64
	CPUTime        time.Duration
	MaxProcesses   int
	PersistCwd     bool
	DieWithProcess bool
	ReadOnly       bool

	// Env holds the variables the Shell adds to every command beyond the
	// host's own (PATH, HOME, Options.PassEnv): the non-interactive
	// defaults and Options.Env, the latter winning. It is a fresh copy.
	Env map[string]string
	// DeniedEnvPatterns are the Shell's Options.DeniedEnvPatterns: globs
	// of variable names no command may see.
	DeniedEnvPatterns []string
}

// Shell is what an executor takes from a shellcap.Shell.
type Shell struct {
	Settings Settings

	// CheckOpen returns shellcap.ErrClosed once the Shell is closed, nil
	// before: an executor whose commands do not run on the host (a
	// container) checks it where Cmd would.
	CheckOpen func() error

	// Admit checks a command before anything runs it: input the kernel
	// cannot take (ErrNULByte, ErrInvalidUTF8), an empty or
	// whitespace-only command (ErrEmptyCommand, "The command is empty."),
	// then the policy and approval. Nil means it may run; otherwise the
	// error is the refusal for the model (a *shellcap.RequestError or a
	// *shellcap.PolicyError, matchable with errors.Is against shellcap's
	// sentinels). A result carrying it has no exit code.
	Admit func(ctx context.Context, command string) error

	// Timeout resolves a requested timeout: zero means def; below the
	// minimum, negative or above max is a refusal (a *shellcap.RequestError
	// whose message tells the model the range).
	Timeout func(requested, def, max time.Duration) (time.Duration, error)

	// Cmd prepares, without starting it, the process that runs command the
	// way Run would: the shell with -c, the resource-limit prelude, the
	// scrubbed environment plus extra, the workspace root (or dir,
	// relative to it) as working directory, and a new session.
	Cmd func(command, dir string, extra map[string]string) (*exec.Cmd, error)

	// Start starts a prepared command the way Run does, inside the Shell's
	// sandbox when it has one, and returns the process (to be waited for
	// with os.Process.Wait) and what the sandbox enforces (a
	// *shellcap.Enforcement, nil without a sandbox). A Confiner's refusal
	// is an error matching shellcap.ErrSandbox whose message is for the
	// model (the command did not run: report it as the result's Err); a
	// launcher's failure to start also matches ErrSandbox.
	Start func(cmd *exec.Cmd) (p *os.Process, enforcement any, err error)

	// BeforeStep protects what the host obeys in the workspace before a
	// step of a long-lived confined shell (a session); AfterStep checks
	// it after the step and returns what was quarantined and the notes
	// that say so. Both do nothing without a sandbox that guards the
	// workspace.
	BeforeStep func() error
	AfterStep  func() (quarantined []string, notes []string)

	// WatchGroup and WatchDir make a process group or a directory die
	// with this process (Options.DieWithProcess); without it they do
	// nothing.
	WatchGroup func(pgid int) (release func(), err error)
	WatchDir   func(path string) (release func(), err error)

	// Confiner is the Shell's Options.Sandbox (a shellcap.Confiner), nil
	// without one.
	Confiner any

	// Logger is the Shell's logger, never nil.
	Logger *slog.Logger
}

var of func(sh any) *Shell

// Register installs the accessor; package shellcap calls it once, in init.
func Register(f func(sh any) *Shell) { of = f }

// Of returns the seam of sh, a *shellcap.Shell. It panics on anything
// else: that is a programming error in this module.
func Of(sh any) *Shell {
	c := of(sh)
	if c == nil {
		panic("core: not a usable *shellcap.Shell")
	}
	return c
}
