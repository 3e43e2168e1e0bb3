package main

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap/policy"
)

// policyFlags are the command-policy flags shared by run and policy check.
type policyFlags struct {
	file             string
	allow            []string
	deny             []string
	noDenyList       bool
	operators        []string
	allowInteractive bool
	denyPatterns     []string
	allowPatterns    []string
	approval         bool
}

func (p *policyFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.file, "policy", "", "policy file (YAML or JSON: allowed_commands, denied_commands, denied_operators, ...)")
	f.StringSliceVar(&p.allow, "allow", nil, "allow only these commands (replaces the default deny list)")
	f.StringSliceVar(&p.deny, "deny", nil, "deny these commands instead of the default list")
	f.BoolVar(&p.noDenyList, "no-deny-list", false, "disable the default deny list")
	f.StringSliceVar(&p.operators, "deny-operator", nil, "deny shell operators such as '>', '|', '&&', '$(...)'")
	f.BoolVar(&p.allowInteractive, "allow-interactive", false, "allow interactive programs (vim, less, ssh, ...)")
	f.StringSliceVar(&p.denyPatterns, "deny-pattern", nil, "deny commands matching these regular expressions")
	f.StringSliceVar(&p.allowPatterns, "allow-pattern", nil, "allow only commands matching these regular expressions")
	f.BoolVar(&p.approval, "approval-rules", false, "use the approval rule set: read-only commands run, destructive ones are denied, the rest need approval")
}

// rules reads the policy file, then applies the flags over it.
func (p *policyFlags) rules(f *pflag.FlagSet) (policy.Rules, error) {
	var r policy.Rules
	if p.file != "" {
		data, err := os.ReadFile(p.file)
		if err != nil {
			return r, err
		}
		if r, err = policy.ParseRules(data); err != nil {
			return r, err
		}
	}
	if f.Changed("allow") {
		r.AllowedCommands = p.allow
	}
	if f.Changed("deny") {
		r.DeniedCommands = p.deny
	}
	if p.noDenyList {
		r.DeniedCommands = []string{}
	}
	if f.Changed("deny-operator") {
		r.DeniedOperators = p.operators
	}
	if p.allowInteractive {
		r.AllowInteractive = true
	}
	if f.Changed("deny-pattern") {
		r.DenyPatterns = p.denyPatterns
	}
	if f.Changed("allow-pattern") {
		r.AllowPatterns = p.allowPatterns
	}
	if p.approval {
		r.Approval = true
	}
	return r, nil
}
