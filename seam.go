package shellcap

// This file is the root's side of the seam executors build on (package
// internal/core): what a session, a job or a container command takes from
// a Shell.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/shellcap/shellcap/internal/core"
)

// authorize checks a command before anything runs it: input the kernel
// cannot take (NUL bytes, invalid UTF-8), an empty or whitespace-only
// command (ErrEmptyCommand), then the command policy and the approver. It
// returns nil when the command may run, or the refusal for the model.
func (s *Shell) authorize(ctx context.Context, command string) error {
	if rerr := checkCommand(command); rerr != nil {
		return rerr
	}
	if perr := s.authorizePolicy(ctx, command); perr != nil {
		return perr
	}
	return nil
}

// prepare prepares, without starting it, the process that runs command the way
// Run would: the shell with -c, the resource-limit prelude, the scrubbed
// environment plus extra, the workspace root (or dir, relative to it) as
// working directory, and a new session. Stdin, stdout and stderr are left
// for the caller. It does not check the command: call authorize first.
func (s *Shell) prepare(command, dir string, extra map[string]string) (*exec.Cmd, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	env, err := s.requestEnv(extra)
	if err != nil {
		return nil, err
	}
	wd := s.root
	if dir != "" {
		if wd, err = s.requestedDir(dir); err != nil {
			return nil, err
		}
	}
	cmd, rerr := s.command("", command, wd, env)
	if rerr != nil {
		return nil, rerr
	}
	return cmd, nil
}

// command builds the process that runs prefix and command (the shell
// code Run adds, such as the working-directory trap, then the model's
// command) after the resource-limit prelude: `shell -c SCRIPT` in dir with
// env, in a new session (Run may trade that for a process group of its
// own, see runAttr). Run and prepare both build their processes here.
// A script over the kernel's limit for one argument is a refusal
// (ErrCommandTooLong) naming how long the command may be.
func (s *Shell) command(prefix, command, dir string, env []string) (*exec.Cmd, *RequestError) {
	fixed := len(s.prelude) + len(prefix)
	if fixed+len(command)+1 > maxArgLen {
		return nil, requestErr(ErrCommandTooLong, "The command is %d bytes; one argument may hold at most %d. Write long scripts to a file and run the file instead.", len(command), maxArgLen-1-fixed)
	}
	return &exec.Cmd{
		Path:        s.shellPath,
		Args:        []string{s.shellArg0, "-c", s.prelude + prefix + command},
		Dir:         dir,
		Env:         env,
		SysProcAttr: setsidAttr(),
	}, nil
}

// start starts cmd, prepared (usually by prepare) but not started, the way Run
// starts its commands: inside the Shell's sandbox when it has one. It
// returns the process, which the caller waits for with os.Process.Wait,
// and what the sandbox enforces (nil without one). cmd itself must not be
// waited for with exec.Cmd.Wait, so its Stdin, Stdout and Stderr must be
// *os.File or nil. Files a Confiner adds to cmd.ExtraFiles are closed
// after the start. A Confiner's refusal is a *sandboxRefusal (the command
// did not run; errors.Is matches ErrSandbox); a launcher's failure to
// start wraps ErrSandbox and the cause.
func (s *Shell) start(cmd *exec.Cmd) (*os.Process, *Enforcement, error) {
	if err := s.usable(); err != nil {
		return nil, nil, err
	}
	for i, st := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := st.(*os.File); st != nil && !ok {
			return nil, nil, fmt.Errorf("shellcap: start: standard stream %d must be an *os.File or nil, not %T", i, st)
		}
	}
	if s.launcher != nil {
		p, err := s.launcher.Start(cmd)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrSandbox, err)
		}
		return p, s.launcher.Enforcement(), nil
	}
	var enf *Enforcement
	if s.opts.Sandbox != nil {
		extra := len(cmd.ExtraFiles)
		e, err := s.opts.Sandbox.Confine(cmd, s.root)
		if err != nil {
			return nil, nil, &sandboxRefusal{err: err}
		}
		enf = e
		defer func() {
			for _, f := range cmd.ExtraFiles[extra:] {
				_ = f.Close() // the confiner's, e.g. a policy pipe
			}
		}()
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd.Process, enf, nil
}

func init() { core.Register(coreOf) }

// coreOf builds the seam of a *Shell for package internal/core.
func coreOf(v any) *core.Shell {
	s, ok := v.(*Shell)
	if !ok || s == nil {
		return nil
	}
	c := &core.Shell{
		Settings:  coreSettings(s),
		CheckOpen: s.checkOpen,
		Admit:     s.authorize,
		Timeout: func(t, def, max time.Duration) (time.Duration, error) {
			d, rerr := resolveTimeout(t, def, max)
			if rerr != nil {
				return 0, rerr
			}
			return d, nil
		},
		Cmd: s.prepare,
		Start: func(cmd *exec.Cmd) (*os.Process, any, error) {
			p, enf, err := s.start(cmd)
			if enf == nil {
				return p, nil, err
			}
			return p, enf, err
		},
		BeforeStep: s.beforeStep,
		AfterStep:  s.afterStep,
		WatchGroup: s.watchGroup,
		WatchDir:   s.watchDir,
		Logger:     s.log,
	}
	if s.opts.Sandbox != nil {
		c.Confiner = s.opts.Sandbox
	}
	return c
}

// coreSettings is what executors inherit from s.
func coreSettings(s *Shell) core.Settings {
	o := &s.opts
	return core.Settings{
		Workspace:         s.root,
		DefaultTimeout:    o.DefaultTimeout,
		MaxTimeout:        o.MaxTimeout,
		KillGrace:         o.KillGrace,
		MaxOutputBytes:    o.MaxOutputBytes,
		MaxOutputChars:    o.MaxOutputChars,
		HeadAndTail:       o.HeadAndTail,
		StdoutBudget:      core.Budget(o.StdoutBudget),
		StderrBudget:      core.Budget(o.StderrBudget),
		KeepANSI:          o.KeepANSI,
		MaxFileBytes:      o.MaxFileBytes,
		MemoryLimit:       o.MemoryLimit,
		CPUTime:           o.CPUTime,
		MaxProcesses:      o.MaxProcesses,
		PersistCwd:        o.PersistCwd,
		DieWithProcess:    o.DieWithProcess,
		ReadOnly:          s.readOnly,
		Env:               shellAddedEnv(o),
		DeniedEnvPatterns: slices.Clone(o.DeniedEnvPatterns),
	}
}

// sandboxRefusal is a Confiner's refusal to confine a command: it did not
// run. Run reports it in Result.Err; errors.Is matches ErrSandbox and the
// confiner's error.
type sandboxRefusal struct{ err error }

func (e *sandboxRefusal) Error() string {
	return "The sandbox refused to run this command: " + e.err.Error()
}

func (e *sandboxRefusal) Unwrap() []error { return []error{ErrSandbox, e.err} }
