package cliconf

import (
	"fmt"
	"net"
	"os"
	"slices"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/policy"
)

// Flags are the flags that configure a Shell, its sessions, jobs and
// executors: one per configuration key (config.Keys), so every key has a
// flag and the flag's help is the key's description. Only flags given on
// the command line count: they override SHELLCAP_* variables, which
// override the configuration files (see Load).
type Flags struct {
	configPath string
	// given is the layer the key flags write as they are parsed.
	given      config.File
	policyFile string
	noDenyList bool
	allowHost  []string
	// origins says where each key of the last effective configuration
	// came from, for the errors that name a key (keyed).
	origins config.Origins
}

// Keyed makes an error a library constructor returned for an option of
// type lib ("shellcap.Options", "jobs.Options") name the configuration
// key instead, and where its value came from (config.KeyError).
func (o *Flags) Keyed(lib string, err error) error {
	return config.KeyError(lib, err, o.origins)
}

// HelperFlags are the flags that set keys without being one: they are
// shorthands or read a file. Every other flag of the option set is a key's
// (TestEveryFlagIsAKey).
var HelperFlags = map[string]string{
	"config":       "names the configuration file",
	"policy":       "reads the policy.* keys from a policy file",
	"no-deny-list": "sets policy.denied_commands to []",
	"allow-host":   "sets sandbox_network: allowlist and adds to sandbox_allow",
}

// keyFlag is the flag of one configuration key.
type keyFlag struct {
	layer *config.File
	key   config.Key
}

func (k *keyFlag) String() string { return "" }

func (k *keyFlag) Set(s string) error { return k.layer.Set(k.key.Key, s) }

// Type names the value in --help; "bool" makes pflag show none.
func (k *keyFlag) Type() string {
	switch k.key.Kind {
	case "size":
		return "bytes"
	case "list":
		return "strings"
	case "map":
		return "NAME=VALUE"
	}
	return k.key.Kind
}

// InScope reports whether a subcommand of scope has the flag of k.
func InScope(k config.Key, scope config.Scope) bool {
	switch k.Scope {
	case config.Commands:
		return true
	case config.Servers:
		return scope == config.Servers || scope == config.Serve
	}
	return k.Scope == scope
}

// usage is the help text of a key's flag: its description, its default
// and its configuration key and variable.
func usage(k config.Key) string {
	s := k.Usage
	if k.Default != "" && k.Kind != "bool" {
		s += " (default " + k.Default + ")"
	}
	return s + " [" + k.Key + ", $" + k.Env + "]"
}

// Register adds the flags of the keys of scope.
func (o *Flags) Register(f *pflag.FlagSet, scope config.Scope) {
	o.RegisterExcept(f, scope)
}

// RegisterExcept is Register without the flags of the keys named in
// except: a program that gives one of them its own meaning (the Temporal
// worker's repeatable --workspace) registers the rest.
func (o *Flags) RegisterExcept(f *pflag.FlagSet, scope config.Scope, except ...string) {
	f.StringVar(&o.configPath, "config", "", "your configuration file (default: $SHELLCAP_CONFIG, else shellcap.yaml in $XDG_CONFIG_HOME/shellcap or ~/.config/shellcap); a shellcap.yaml in the workspace only tightens it unless trusted (shellcap config trust)")
	for _, k := range config.Keys() {
		if !InScope(k, scope) || slices.Contains(except, k.Key) {
			continue
		}
		short := ""
		if k.Key == "workspace" {
			short = "w"
		}
		fl := f.VarPF(&keyFlag{layer: &o.given, key: k}, k.Flag, short, usage(k))
		if k.Kind == "bool" {
			fl.NoOptDefVal = "true"
		}
	}
	f.StringVar(&o.policyFile, "policy", "", "policy file (YAML or JSON: allowed_commands, denied_commands, denied_operators, ...); policy flags override its keys")
	f.BoolVar(&o.noDenyList, "no-deny-list", false, "disable the default deny list [policy.denied_commands: []]")
	f.StringSliceVar(&o.allowHost, "allow-host", nil, "let sandboxed commands reach this host (HOST for port 443, or HOST:PORT; *.example.com for subdomains) through the allowlist proxy (repeatable) [sandbox_network: allowlist, sandbox_allow]")
}

// Layer renders the flags given on the command line as a configuration
// layer.
func (o *Flags) Layer(f *pflag.FlagSet) (*config.File, error) {
	l := &config.File{}
	if o.policyFile != "" {
		// A policy file describes the whole policy: it replaces the
		// policy of the lower layers; policy flags override its keys.
		path, err := config.ExpandHome(o.policyFile, os.Getenv("HOME"))
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		r, err := policy.ParseRules(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.policyFile, err)
		}
		l.Policy = config.Policy{
			AllowedCommands: r.AllowedCommands, DeniedCommands: r.DeniedCommands, DeniedOperators: r.DeniedOperators,
			AllowInteractive: &r.AllowInteractive, DenyPatterns: r.DenyPatterns, AllowPatterns: r.AllowPatterns, Approval: &r.Approval,
		}
	}
	given := o.given
	l = config.Merge(l, &given)
	if f.Changed("no-deny-list") && o.noDenyList {
		l.Policy.DeniedCommands = []string{}
	}
	if f.Changed("allow-host") {
		if l.SandboxNetwork != nil && *l.SandboxNetwork != "allowlist" && f.Changed("sandbox-network") {
			return nil, fmt.Errorf("--allow-host needs the allowlist network, not --sandbox-network %s", *l.SandboxNetwork)
		}
		l.SandboxNetwork = new("allowlist")
		for _, h := range o.allowHost {
			if _, _, err := net.SplitHostPort(h); err != nil {
				h = net.JoinHostPort(h, "443")
			}
			if !slices.Contains(l.SandboxAllow, h) {
				l.SandboxAllow = append(slices.Clone(l.SandboxAllow), h)
			}
		}
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return l, nil
}
