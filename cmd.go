package shellcap

import (
	"context"
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
