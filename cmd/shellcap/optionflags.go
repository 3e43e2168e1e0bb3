package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/sandbox"
)

// optionFlags are the flags that configure a Shell, shared by every
// subcommand that runs commands. Only flags given on the command line
// count: they override SHELLCAP_* variables, which override the
// configuration file.
type optionFlags struct {
	configPath string
	v          struct {
		workspace, shell                          string
		defaultTimeout, maxTimeout, killGrace     time.Duration
		cpuTime                                   time.Duration
		maxOutputChars, maxProcesses              int
		headAndTail, keepANSI, noFiles, persist   bool
		readOnly                                  bool
		passEnv, denyEnv                          []string
		maxOut, maxFile, memLimit                 byteSize
		env                                       envFlag
		policyFile                                string
		allow, deny, operators, denyPat, allowPat []string
		noDenyList, allowInteractive, approval    bool
		sandbox, sandboxNet                       string
		sandboxAllow                              []string
		sandboxReadAll                            bool
		sandboxProcs, sandboxProxyConns           int
		sandboxTmpSize                            byteSize
		sandboxProxyIdle                          time.Duration
	}
}

func (o *optionFlags) register(f *pflag.FlagSet) {
	v := &o.v
	v.env = envFlag{}
	f.StringVar(&o.configPath, "config", "", "configuration file (default: $SHELLCAP_CONFIG, else shellcap.yaml, .yml or .json in the current directory)")
	f.StringVarP(&v.workspace, "workspace", "w", "", "workspace directory (default: the current directory)")
	f.DurationVar(&v.defaultTimeout, "default-timeout", 0, "timeout when a request sets none (default 30s)")
	f.DurationVar(&v.maxTimeout, "max-timeout", 0, "largest timeout a request may ask for (default 10m)")
	f.DurationVar(&v.killGrace, "kill-grace", 0, "time between SIGTERM and SIGKILL on timeout (default 2s)")
	f.StringVar(&v.shell, "shell", "", "shell that runs commands with -c (default: bash, else /bin/sh)")
	f.Var(v.env, "env", "add NAME=VALUE to the command environment (repeatable)")
	f.StringSliceVar(&v.passEnv, "pass-env", nil, "host variables to pass through beyond PATH HOME LANG LC_ALL LC_CTYPE TERM TMPDIR")
	f.StringSliceVar(&v.denyEnv, "deny-env", nil, "remove variables matching these globs ('llm_api_keys' for the usual credential names)")
	f.Var(&v.maxOut, "max-output-bytes", "stop a command after it printed this much (default 64MiB; e.g. 10M)")
	f.IntVar(&v.maxOutputChars, "max-output-chars", 0, "cap on the text the model reads, in characters (default 50000; negative: none)")
	f.BoolVar(&v.headAndTail, "head-and-tail", false, "keep both ends of over-long output instead of only the end")
	f.BoolVar(&v.keepANSI, "keep-ansi", false, "keep ANSI escape sequences in the output")
	f.BoolVar(&v.noFiles, "no-output-files", false, "do not keep the complete output of truncated commands under .shellcap/output")
	f.Var(&v.maxFile, "max-file-bytes", "largest file a command may write (e.g. 10M)")
	f.Var(&v.memLimit, "memory-limit", "address-space limit per process (e.g. 2G)")
	f.DurationVar(&v.cpuTime, "cpu-time", 0, "CPU time limit per process (e.g. 30s)")
	f.IntVar(&v.maxProcesses, "max-processes", 0, "process limit for the command's user (not enforced for root)")
	f.BoolVar(&v.persist, "persist-cwd", false, "make cd stick across calls")
	f.BoolVar(&v.readOnly, "read-only", false, "treat the workspace as read-only: no command execution")
	f.StringVar(&v.policyFile, "policy", "", "policy file (YAML or JSON: allowed_commands, denied_commands, denied_operators, ...)")
	f.StringSliceVar(&v.allow, "allow", nil, "allow only these commands (replaces the default deny list)")
	f.StringSliceVar(&v.deny, "deny", nil, "deny these commands instead of the default list")
	f.BoolVar(&v.noDenyList, "no-deny-list", false, "disable the default deny list")
	f.StringSliceVar(&v.operators, "deny-operator", nil, "deny shell operators such as '>', '|', '&&', '$(...)'")
	f.BoolVar(&v.allowInteractive, "allow-interactive", false, "allow interactive programs (vim, less, ssh, ...)")
	f.StringSliceVar(&v.denyPat, "deny-pattern", nil, "deny commands matching these regular expressions")
	f.StringSliceVar(&v.allowPat, "allow-pattern", nil, "allow only commands matching these regular expressions")
	f.StringVar(&v.sandbox, "sandbox", "", "run commands in the Linux sandbox: workspace-write, read-only or full-access (see shellcap sandbox doctor)")
	f.StringVar(&v.sandboxNet, "sandbox-network", "", "the sandbox's network: none (default), allowlist (only --sandbox-allow, through a proxy) or full")
	f.StringSliceVar(&v.sandboxAllow, "sandbox-allow", nil, "host:port a sandboxed command may reach with --sandbox-network allowlist (repeatable; *.example.com:443 for subdomains)")
	f.BoolVar(&v.sandboxReadAll, "sandbox-read-everything", false, "let sandboxed commands read the whole filesystem (~/.ssh included), not only system directories and the workspace")
	f.IntVar(&v.sandboxProcs, "sandbox-process-limit", 0, "processes and threads one sandbox may hold (default 512; negative: none)")
	f.Var(&v.sandboxTmpSize, "sandbox-tmp-size", "size of each private tmpfs of the sandbox: /tmp, /dev/shm, /run (default 1GiB)")
	f.IntVar(&v.sandboxProxyConns, "sandbox-proxy-max-conns", 0, "connections the allowlist proxy holds open for one sandbox (default 128)")
	f.DurationVar(&v.sandboxProxyIdle, "sandbox-proxy-idle-timeout", 0, "close a proxy connection silent this long (default 5m)")
	f.BoolVar(&v.approval, "approval-rules", false, "use the approval rule set: read-only commands run, destructive ones are denied, the rest need approval")
}

// layer renders the flags given on the command line as a configuration
// layer.
func (o *optionFlags) layer(f *pflag.FlagSet) (*config.File, error) {
	v := &o.v
	l := &config.File{}
	set := func(name string, apply func()) {
		if f.Changed(name) {
			apply()
		}
	}
	set("workspace", func() { l.Workspace = &v.workspace })
	set("shell", func() { l.Shell = &v.shell })
	set("default-timeout", func() { l.DefaultTimeout = &v.defaultTimeout })
	set("max-timeout", func() { l.MaxTimeout = &v.maxTimeout })
	set("kill-grace", func() { l.KillGrace = &v.killGrace })
	set("cpu-time", func() { l.CPUTime = &v.cpuTime })
	set("max-output-chars", func() { l.MaxOutputChars = &v.maxOutputChars })
	set("max-processes", func() { l.MaxProcesses = &v.maxProcesses })
	set("head-and-tail", func() { l.HeadAndTail = &v.headAndTail })
	set("keep-ansi", func() { l.KeepANSI = &v.keepANSI })
	set("no-output-files", func() { l.DisableOutputFiles = &v.noFiles })
	set("persist-cwd", func() { l.PersistCwd = &v.persist })
	set("read-only", func() { l.ReadOnly = &v.readOnly })
	set("pass-env", func() { l.PassEnv = v.passEnv })
	set("deny-env", func() { l.DeniedEnvPatterns = v.denyEnv })
	set("max-output-bytes", func() { l.MaxOutputBytes = new(int64(v.maxOut)) })
	set("max-file-bytes", func() { l.MaxFileBytes = new(int64(v.maxFile)) })
	set("memory-limit", func() { l.MemoryLimit = new(int64(v.memLimit)) })
	set("env", func() { l.Env = v.env })
	set("sandbox", func() { l.Sandbox = &v.sandbox })
	set("sandbox-network", func() { l.SandboxNetwork = &v.sandboxNet })
	set("sandbox-allow", func() { l.SandboxAllow = v.sandboxAllow })
	set("sandbox-read-everything", func() { l.SandboxReadEverything = &v.sandboxReadAll })
	set("sandbox-process-limit", func() { l.SandboxProcessLimit = &v.sandboxProcs })
	set("sandbox-tmp-size", func() { l.SandboxTmpSize = new(int64(v.sandboxTmpSize)) })
	set("sandbox-proxy-max-conns", func() { l.SandboxProxyMaxConns = &v.sandboxProxyConns })
	set("sandbox-proxy-idle-timeout", func() { l.SandboxProxyIdleTimeout = &v.sandboxProxyIdle })
	if v.policyFile != "" {
		// A policy file describes the whole policy: it replaces the
		// policy of the lower layers.
		data, err := os.ReadFile(v.policyFile)
		if err != nil {
			return nil, err
		}
		r, err := policy.ParseRules(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.policyFile, err)
		}
		l.Policy = config.Policy{
			AllowedCommands: r.AllowedCommands, DeniedCommands: r.DeniedCommands, DeniedOperators: r.DeniedOperators,
			AllowInteractive: &r.AllowInteractive, DenyPatterns: r.DenyPatterns, AllowPatterns: r.AllowPatterns, Approval: &r.Approval,
		}
	}
	p := &l.Policy
	set("allow", func() { p.AllowedCommands = v.allow })
	set("deny", func() { p.DeniedCommands = v.deny })
	set("no-deny-list", func() { p.DeniedCommands = []string{} })
	set("deny-operator", func() { p.DeniedOperators = v.operators })
	set("allow-interactive", func() { p.AllowInteractive = &v.allowInteractive })
	set("deny-pattern", func() { p.DenyPatterns = v.denyPat })
	set("allow-pattern", func() { p.AllowPatterns = v.allowPat })
	set("approval-rules", func() { p.Approval = &v.approval })
	return l, nil
}

// effective merges the configuration file, the SHELLCAP_* environment and
// the flags, in rising precedence.
func (o *optionFlags) effective(f *pflag.FlagSet, extra ...*config.File) (*config.File, error) {
	path := o.configPath
	if path == "" {
		path = os.Getenv(config.EnvConfigFile)
	}
	file := &config.File{}
	if path != "" {
		var err error
		if file, err = config.Load(path); err != nil {
			return nil, err
		}
	} else if found, ok := config.Find("."); ok {
		var err error
		if file, err = config.Load(found); err != nil {
			return nil, err
		}
	}
	env, err := config.FromEnv(os.Environ())
	if err != nil {
		return nil, err
	}
	flags, err := o.layer(f)
	if err != nil {
		return nil, err
	}
	return config.Merge(append([]*config.File{file, env, flags}, extra...)...), nil
}

// options returns the Options of the effective configuration.
func (o *optionFlags) options(f *pflag.FlagSet) (shellcap.Options, *config.File, error) {
	eff, err := o.effective(f)
	if err != nil {
		return shellcap.Options{}, nil, err
	}
	opts, err := libraryOptions(eff)
	return opts, eff, err
}

// libraryOptions turns a configuration into the library's Options, with
// the CLI's logger and the sandbox the configuration names.
func libraryOptions(eff *config.File) (shellcap.Options, error) {
	opts, err := eff.Options()
	if err != nil {
		return opts, err
	}
	opts.Logger = slog.Default()
	if cfg := sandboxConfig(eff); cfg != nil {
		opts.Sandbox = sandbox.Confiner(*cfg)
	}
	return opts, nil
}

// sandboxConfig is the sandbox the configuration names, nil for none.
func sandboxConfig(eff *config.File) *sandbox.Config {
	if eff.Sandbox == nil || *eff.Sandbox == "" {
		return nil
	}
	cfg := &sandbox.Config{Profile: sandbox.Profile(*eff.Sandbox), Allow: eff.SandboxAllow}
	if eff.SandboxNetwork != nil {
		cfg.Network = sandbox.Network(*eff.SandboxNetwork)
	}
	if eff.SandboxReadEverything != nil {
		cfg.ReadEverything = *eff.SandboxReadEverything
	}
	if eff.SandboxProcessLimit != nil {
		cfg.ProcessLimit = *eff.SandboxProcessLimit
	}
	if eff.SandboxTmpSize != nil {
		cfg.TmpSize = *eff.SandboxTmpSize
	}
	if eff.SandboxProxyMaxConns != nil {
		cfg.ProxyMaxConns = *eff.SandboxProxyMaxConns
	}
	if eff.SandboxProxyIdleTimeout != nil {
		cfg.ProxyIdleTimeout = *eff.SandboxProxyIdleTimeout
	}
	return cfg
}

// jobOptions are the job Manager's options of a configuration: its jobs
// run in the same sandbox as the Shell's commands.
func jobOptions(eff *config.File) jobs.Options {
	return jobs.Options{Sandbox: sandboxConfig(eff)}
}

// shell builds the Shell of the effective configuration; extra layers go
// above the flags. The caller closes the Shell.
func (o *optionFlags) shell(f *pflag.FlagSet, extra ...*config.File) (*shellcap.Shell, *config.File, error) {
	eff, err := o.effective(f, extra...)
	if err != nil {
		return nil, nil, err
	}
	opts, err := libraryOptions(eff)
	if err != nil {
		return nil, nil, err
	}
	sh, err := shellcap.New(opts)
	return sh, eff, err
}
