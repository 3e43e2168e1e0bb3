package main

import (
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap"
)

// optionFlags are the flags that fill shellcap.Options, shared by every
// subcommand that runs commands.
type optionFlags struct {
	opts     shellcap.Options
	env      envFlag
	maxOut   byteSize
	maxFile  byteSize
	memLimit byteSize
	policy   policyFlags
}

func (o *optionFlags) register(f *pflag.FlagSet) {
	o.env = envFlag{}
	f.StringVarP(&o.opts.Workspace, "workspace", "w", "", "workspace directory (default: the current directory)")
	f.DurationVar(&o.opts.DefaultTimeout, "default-timeout", 0, "timeout when a request sets none (default 30s)")
	f.DurationVar(&o.opts.MaxTimeout, "max-timeout", 0, "largest timeout a request may ask for (default 10m)")
	f.DurationVar(&o.opts.KillGrace, "kill-grace", 0, "time between SIGTERM and SIGKILL on timeout (default 2s)")
	f.StringVar(&o.opts.Shell, "shell", "", "shell that runs commands with -c (default: bash, else /bin/sh)")
	f.Var(o.env, "env", "add NAME=VALUE to the command environment (repeatable)")
	f.StringSliceVar(&o.opts.PassEnv, "pass-env", nil, "host variables to pass through beyond PATH HOME LANG LC_ALL LC_CTYPE TERM TMPDIR")
	f.StringSliceVar(&o.opts.DeniedEnvPatterns, "deny-env", nil, "remove variables matching these globs (e.g. '*_TOKEN')")
	f.Var(&o.maxOut, "max-output-bytes", "stop a command after it printed this much (default 64MiB; e.g. 10M)")
	f.IntVar(&o.opts.MaxOutputChars, "max-output-chars", 0, "cap on the text the model reads, in characters (default 50000; negative: none)")
	f.BoolVar(&o.opts.HeadAndTail, "head-and-tail", false, "keep both ends of over-long output instead of only the end")
	f.BoolVar(&o.opts.KeepANSI, "keep-ansi", false, "keep ANSI escape sequences in the output")
	f.BoolVar(&o.opts.DisableOutputFiles, "no-output-files", false, "do not keep the complete output of truncated commands under .shellcap/output")
	f.Var(&o.maxFile, "max-file-bytes", "largest file a command may write (e.g. 10M)")
	f.Var(&o.memLimit, "memory-limit", "address-space limit per process (e.g. 2G)")
	f.DurationVar(&o.opts.CPUTime, "cpu-time", 0, "CPU time limit per process (e.g. 30s)")
	f.IntVar(&o.opts.MaxProcesses, "max-processes", 0, "process limit for the command's user (not enforced for root)")
	f.BoolVar(&o.opts.PersistCwd, "persist-cwd", false, "make cd stick across calls (servers and sessions)")
	f.BoolVar(&o.opts.ReadOnly, "read-only", false, "treat the workspace as read-only: no command execution")
	o.policy.register(f)
}

// options returns the Options the flags describe.
func (o *optionFlags) options(f *pflag.FlagSet) (shellcap.Options, error) {
	opts := o.opts
	opts.Env = o.env
	opts.MaxOutputBytes = int64(o.maxOut)
	opts.MaxFileBytes = int64(o.maxFile)
	opts.MemoryLimit = int64(o.memLimit)
	opts.Logger = slog.Default()
	var err error
	opts.Policy, err = o.policy.rules(f)
	return opts, err
}
