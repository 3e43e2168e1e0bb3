package shellcap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// Authorize checks a command before anything runs it: input the kernel
// cannot take (NUL bytes, invalid UTF-8) and the command policy. It returns
// nil when the command may run, or a Result to hand to the model that says
// why not. Run calls it; packages that start commands in other ways (jobs,
// sessions) call it too.
func (s *Shell) Authorize(ctx context.Context, command string) *Result {
	if rerr := checkCommand(command); rerr != nil {
		res := s.newResult(command)
		res.Err = rerr
		return res
	}
	if perr := s.authorizePolicy(ctx, command); perr != nil {
		res := s.newResult(command)
		res.Err = perr
		return res
	}
	return nil
}

// Cmd prepares, without starting it, the process that runs command the way
// Run would: the shell with -c, the resource-limit prelude, the scrubbed
// environment plus extra, the workspace root (or dir, relative to it) as
// working directory, and a new session. Stdin, stdout and stderr are left
// for the caller. It does not check the command: call Authorize first.
func (s *Shell) Cmd(command, dir string, extra map[string]string) (*exec.Cmd, error) {
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

// Start starts cmd, prepared (usually by Cmd) but not started, the way Run
// starts its commands: inside the Shell's sandbox when it has one. It
// returns the process, which the caller waits for with os.Process.Wait,
// and what the sandbox enforces (nil without one). cmd itself must not be
// waited for with exec.Cmd.Wait, so its Stdin, Stdout and Stderr must be
// *os.File or nil. With a sandbox that rewrites each command (a Confiner
// that is not a LaunchingConfiner), cmd must not have ExtraFiles.
func (s *Shell) Start(cmd *exec.Cmd) (*os.Process, *Enforcement, error) {
	if err := s.usable(); err != nil {
		return nil, nil, err
	}
	for i, st := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := st.(*os.File); st != nil && !ok {
			return nil, nil, fmt.Errorf("shellcap: Start: standard stream %d must be an *os.File or nil, not %T", i, st)
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
