package main

import (
	"fmt"
	"net"
	"os"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/policy"
)

// optionFlags are the flags that configure a Shell, shared by every
// subcommand that runs commands. Only flags given on the command line
// count: they override SHELLCAP_* variables, which override the
// configuration files (see loadConfig).
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
		sandboxAllow, allowHost                   []string
		sandboxReadAll                            bool
		sandboxProcs, sandboxProxyConns           int
		sandboxTmpSize                            byteSize
		sandboxProxyIdle                          time.Duration
	}
}

func (o *optionFlags) register(f *pflag.FlagSet) {
	v := &o.v
	v.env = envFlag{}
	f.StringVar(&o.configPath, "config", "", "your configuration file (default: $SHELLCAP_CONFIG, else shellcap.yaml in $XDG_CONFIG_HOME/shellcap or ~/.config/shellcap); a shellcap.yaml in the workspace only tightens it unless trusted (shellcap config trust)")
	f.StringVarP(&v.workspace, "workspace", "w", "", "workspace directory; ~ is expanded (default: the current directory)")
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
	f.StringVar(&v.sandbox, "sandbox", "", "the Linux sandbox's profile: workspace-write (default, degraded with a warning where the machine cannot enforce it), read-only, or full-access to turn it off (see shellcap sandbox doctor)")
	f.StringVar(&v.sandboxNet, "sandbox-network", "", "the sandbox's network: none (default), allowlist (only --sandbox-allow, through a proxy) or full")
	f.StringSliceVar(&v.allowHost, "allow-host", nil, "let sandboxed commands reach this host (HOST for port 443, or HOST:PORT; *.example.com for subdomains) through the allowlist proxy (repeatable)")
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
	if f.Changed("allow-host") {
		if f.Changed("sandbox-network") && v.sandboxNet != "allowlist" {
			return nil, fmt.Errorf("--allow-host needs the allowlist network, not --sandbox-network %s", v.sandboxNet)
		}
		l.SandboxNetwork = new("allowlist")
		for _, h := range v.allowHost {
			if _, _, err := net.SplitHostPort(h); err != nil {
				h = net.JoinHostPort(h, "443")
			}
			if !slices.Contains(l.SandboxAllow, h) {
				l.SandboxAllow = append(slices.Clone(l.SandboxAllow), h)
			}
		}
	}
	set("sandbox-read-everything", func() { l.SandboxReadEverything = &v.sandboxReadAll })
	set("sandbox-process-limit", func() { l.SandboxProcessLimit = &v.sandboxProcs })
	set("sandbox-tmp-size", func() { l.SandboxTmpSize = new(int64(v.sandboxTmpSize)) })
	set("sandbox-proxy-max-conns", func() { l.SandboxProxyMaxConns = &v.sandboxProxyConns })
	set("sandbox-proxy-idle-timeout", func() { l.SandboxProxyIdleTimeout = &v.sandboxProxyIdle })
	if v.policyFile != "" {
		// A policy file describes the whole policy: it replaces the
		// policy of the lower layers.
		path, err := config.ExpandHome(v.policyFile, os.Getenv("HOME"))
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(path)
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
