package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// patternText is the normalised command line that DenyPatterns and
// AllowPatterns match (see Command.Text).
func patternText(cl *call) string {
	head := cl.words[0]
	if !head.lit {
		return cl.text()
	}
	name := identity(baseName(head.val))
	var words []string
	switch {
	case name == "git":
		words = gitNormalized(displayBase(head.val), cl.args())
	case globalSpecs[name].short != "" || len(globalSpecs[name].long) > 0:
		_, i := parseOpts(cl.args(), globalSpecs[name])
		if i > 0 && !cl.args()[i-1].lit {
			return cl.text()
		}
		words = []string{displayBase(head.val)}
		for _, a := range cl.args()[i:] {
			words = append(words, a.val)
		}
	default:
		return cl.text()
	}
	return strings.Join(words, " ")
}

// globalSpecs are the global options of programs with subcommands, which
// come before the subcommand and are left out of the pattern text.
var globalSpecs = map[string]optSpec{
	"docker":    {short: "cHl", long: []string{"config", "context", "host", "log-level", "tlscacert", "tlscert", "tlskey"}, flags: []string{"debug", "tls", "tlsverify", "help", "version"}},
	"podman":    {short: "c", long: []string{"config", "connection", "identity", "log-level", "module", "network-cmd-path", "network-config-dir", "root", "runroot", "runtime", "runtime-flag", "storage-driver", "storage-opt", "tmpdir", "url", "volumepath", "events-backend", "cgroup-manager", "conmon", "hooks-dir", "ssh", "imagestore", "out"}, flags: []string{"remote", "syslog", "debug", "help", "version"}},
	"kubectl":   {short: "ns", long: []string{"namespace", "context", "kubeconfig", "cluster", "user", "server", "token", "as", "as-group", "as-uid", "certificate-authority", "client-certificate", "client-key", "request-timeout", "cache-dir", "tls-server-name", "v", "password", "username", "profile", "profile-output"}, flags: []string{"insecure-skip-tls-verify", "match-server-version", "warnings-as-errors", "help"}},
	"helm":      {short: "n", long: []string{"namespace", "kube-context", "kubeconfig", "kube-apiserver", "kube-as-user", "kube-as-group", "kube-ca-file", "kube-token", "registry-config", "repository-cache", "repository-config", "burst-limit", "qps"}, flags: []string{"debug", "kube-insecure-skip-tls-verify", "help"}},
	"npm":       {short: "C", long: []string{"prefix", "workspace", "userconfig", "globalconfig", "cache", "registry", "loglevel"}, flags: []string{"global", "workspaces", "silent", "quiet", "verbose", "yes", "no"}},
	"cargo":     {short: "CZ", long: []string{"color", "config", "manifest-path"}, flags: []string{"verbose", "quiet", "frozen", "locked", "offline", "help", "version", "list"}},
	"systemctl": {short: "HM", long: []string{"host", "machine", "root", "image"}, flags: []string{"user", "system", "global", "quiet", "no-block", "no-ask-password", "no-pager", "no-legend", "runtime", "force", "now", "no-wall", "no-reload", "dry-run"}},
	"terraform": {long: []string{"chdir"}, flags: []string{"help", "version"}},
}

// probeDenyPatterns looks for an argument only known at run time that
// could make the command match a deny pattern: the literal strings of each
// pattern are tried in its place ("F=--force; git push origin $F" against
// "^git push .*--force").
func (c *checker) probeDenyPatterns(cl *call) (word, string, bool) {
	var dyn []int
	for i, w := range cl.words {
		if i > 0 && !w.lit {
			dyn = append(dyn, i)
		}
	}
	if len(dyn) == 0 {
		return word{}, "", false
	}
	for ri, re := range c.p.denyRE {
		lits := c.p.denyLits[ri]
		probes := append([]string{""}, lits...)
		probes = append(probes, strings.Join(lits, " "))
		for _, probe := range probes {
			probed := *cl
			probed.words = append([]word(nil), cl.words...)
			for _, i := range dyn {
				probed.words[i] = word{val: probe, lit: true}
			}
			if re.MatchString(patternText(&probed)) {
				return cl.words[dyn[0]], re.String(), true
			}
		}
	}
	return word{}, "", false
}

// findDelete applies "find -delete counts as rm" under every kind of list,
// and reports whether it recorded a denial.
func (c *checker) findDelete(cl *call) bool {
	p := c.p
	var del *word
	for _, a := range cl.args() {
		if a.lit && a.val == "-delete" {
			del = &a
			break
		}
	}
	if del == nil {
		return false
	}
	switch {
	case p.isDenied("rm"):
		c.add(Deny, ruleDeniedCommand, "Command 'find' with -delete removes files as 'rm' does, and 'rm' is denied.", del.written(), del.off)
		return true
	case p.allowed != nil && !p.allowed["rm"]:
		c.add(Deny, ruleAllowedCmds, "Command 'find' with -delete removes files as 'rm' does, and 'rm' is not in the allowed list.", del.written(), del.off)
		return true
	case p.allowREOn:
		text := "rm " + strings.TrimPrefix(cl.text(), displayBase(cl.words[0].val)+" ")
		for _, re := range p.allowRE {
			if re.MatchString(text) {
				return false
			}
		}
		c.add(Deny, ruleAllowPattern, fmt.Sprintf("Command 'find' with -delete removes files as 'rm' does, and %s does not match any allowed pattern.", pyRepr(short(text))), del.written(), del.off)
		return true
	}
	return false
}

// hijack denies, under an allow list, a command that changes which program
// a name runs or what an allowed program loads (PATH=..., LD_PRELOAD=...).
func (c *checker) hijack(cl *call) bool {
	if !c.p.exclusive() {
		return false
	}
	check := func(text string, off int) bool {
		name, _, ok := strings.Cut(text, "=")
		if !ok && !strings.HasPrefix(text, "BASH_FUNC_") {
			return false
		}
		if !hijackVariable(strings.TrimSuffix(name, "+")) {
			return false
		}
		c.add(Deny, ruleEnvironment, fmt.Sprintf("Setting %s changes which program a command name runs, or what an allowed program loads, and only allowed programs may run. Run the command without it.", pyRepr(name)), text, off)
		return true
	}
	for _, a := range cl.assigns {
		if check(a.val, a.off) {
			return true
		}
	}
	if len(cl.assigns) == 0 {
		for _, e := range cl.env {
			if check(e, cl.words[0].off) {
				return true
			}
		}
	}
	switch identity(cl.name()) {
	case "export", "declare", "typeset", "local", "readonly", "env":
		for _, a := range cl.args() {
			if check(a.val, a.off) {
				return true
			}
		}
	}
	return false
}

// bareAssignments checks assignments that make up a whole command
// ("PATH=/tmp/x", "BASH_CMDS[ls]=/bin/rm"): under an allow list, those that
// change which program a name runs are denied; under the approval tiers,
// those that change how later commands run need approval.
func (c *checker) bareAssignments(names []string, texts []string, offs []int) {
	for i, n := range names {
		switch {
		case c.p.exclusive() && hijackVariable(n):
			c.add(Deny, ruleEnvironment, fmt.Sprintf("Setting %s changes which program a command name runs, or what an allowed program loads, and only allowed programs may run.", pyRepr(n)), texts[i], offs[i])
		case c.p.approval && sensitiveVariable(n):
			c.add(Ask, ruleApprovalAsk, fmt.Sprintf("Setting %s changes which programs later commands run, or how, so it needs the user's approval.", n), texts[i], offs[i])
		}
	}
}

// assignOnly checks a command made only of assignments (walk.go calls it).
func (c *checker) assignOnly(as []*syntax.Assign) {
	var names, texts []string
	var offs []int
	var ws []word
	for _, a := range as {
		if a.Name == nil {
			continue
		}
		names = append(names, a.Name.Value)
		texts = append(texts, c.text(a))
		offs = append(offs, c.off(a.Pos()))
		ws = append(ws, c.assignWord(a))
	}
	c.bareAssignments(names, texts, offs)
	c.gitEnvironment(ws)
}

// assignWord makes a NAME=value word of an assignment, with the value
// resolved (not literal when the value is only known at run time).
func (c *checker) assignWord(a *syntax.Assign) word {
	name := ""
	if a.Name != nil {
		name = a.Name.Value
	}
	if a.Index != nil || a.Array != nil {
		return word{val: c.text(a), raw: c.text(a), off: c.off(a.Pos())}
	}
	if a.Value == nil {
		return word{val: name + "=", prefix: name + "=", lit: true, off: c.off(a.Pos()), raw: c.text(a)}
	}
	v := c.resolve(a.Value)
	w := word{val: name + "=" + v.val, prefix: name + "=" + v.prefix, lit: v.lit, off: c.off(a.Pos()), raw: c.text(a), node: a.Value}
	if v.exact && !a.Append {
		w.exact, w.valOff = true, v.valOff-len(name)-1
	}
	return w
}
