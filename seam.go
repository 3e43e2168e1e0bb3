package shellcap

// This file is the root's side of the seam executors build on (package
// internal/core): what a session, a job or a container command takes from
// a Shell.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/shellcap/shellcap/internal/core"
)

// authorize checks a command before anything runs it: input the kernel
// cannot take (NUL bytes, invalid UTF-8) and the command policy. It returns
// nil when the command may run, or the refusal for the model.
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
	return &exec.Cmd{
		Path:        s.shellPath,
		Args:        []string{s.shellArg0, "-c", s.prelude + command},
		Dir:         wd,
		Env:         env,
		SysProcAttr: sessionAttr(),
	}, nil
}

// start starts cmd, prepared (usually by prepare) but not started, the way Run
// starts its commands: inside the Shell's sandbox when it has one. It
// returns the process, which the caller waits for with os.Process.Wait,
// and what the sandbox enforces (nil without one). cmd itself must not be
// waited for with exec.Cmd.Wait, so its Stdin, Stdout and Stderr must be
// *os.File or nil. With a sandbox that rewrites each command (a Confiner
// that is not a LaunchingConfiner), cmd must not have ExtraFiles.
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
			return nil, nil, fmt.Errorf("%w: %w", ErrSandbox, err)
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
	o := &s.opts
	c := &core.Shell{
		Settings: core.Settings{
			Workspace:      s.root,
			DefaultTimeout: o.DefaultTimeout,
			MaxTimeout:     o.MaxTimeout,
			KillGrace:      o.KillGrace,
			MaxOutputBytes: o.MaxOutputBytes,
			MaxOutputChars: o.MaxOutputChars,
			HeadAndTail:    o.HeadAndTail,
			KeepANSI:       o.KeepANSI,
			MaxFileBytes:   o.MaxFileBytes,
			MemoryLimit:    o.MemoryLimit,
			CPUTime:        o.CPUTime,
			MaxProcesses:   o.MaxProcesses,
			PersistCwd:     o.PersistCwd,
			DieWithProcess: o.DieWithProcess,
		},
		Admit: s.authorize,
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
	if o.Sandbox != nil {
		c.Confiner = o.Sandbox
	}
	return c
}
