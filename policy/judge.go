package policy

import (
	"fmt"
	"slices"
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

// runtimeValue asks about a variable whose value a program later runs as
// code, when that value is only known at run time: GIT_SSH_COMMAND=$X,
// EDITOR="$X", PS4="\$($X)".
func (c *checker) runtimeValue(name string, val word) {
	if code, ok := envPathValue(val); ok {
		// "ssh -i $HOME/.ssh/key": the variables name the environment's own
		// directories, so the command is checked with them filled in.
		v := word{val: code, lit: true, off: val.off}
		if codeVariables[name] {
			c.nested(code, v, append(slices.Clip(c.src.via), name+"="), "the value of "+name)
			return
		}
		if !strings.ContainsAny(code, "$`") {
			return
		}
	}
	c.runtime(fmt.Sprintf("The value of %s, which is run as a command later, is only known at run time (%s)", name, short(val.val)), val.written(), val.off)
}

// envPathVars are variables that hold the environment's own directories
// and names; their value is not code.
var envPathVars = map[string]string{"HOME": "/home/user", "PWD": "/work", "TMPDIR": "/tmp", "USER": "user", "LOGNAME": "user", "XDG_CONFIG_HOME": "/home/user/.config", "XDG_CACHE_HOME": "/home/user/.cache"}

// envPathValue fills in a value whose only expansions are plain
// references to envPathVars ($HOME, ${PWD}), for checking.
func envPathValue(w word) (string, bool) {
	if w.node == nil {
		return "", false
	}
	var b strings.Builder
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			if x.Dollar {
				return false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
					continue
				}
				if !part(dp) {
					return false
				}
			}
		case *syntax.ParamExp:
			if x.Param == nil || x.Exp != nil || x.Repl != nil || x.Slice != nil || x.Index != nil || x.Length || x.Excl || x.Names != 0 || x.Width {
				return false
			}
			v, ok := envPathVars[x.Param.Value]
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
		return true
	}
	for _, p := range w.node.Parts {
		if !part(p) {
			return "", false
		}
	}
	return b.String(), true
}

// moreCodeVariables are further variables whose value a program runs as a
// command: editors and pagers of other tools, and remote shells.
var moreCodeVariables = []string{
	"SUDO_EDITOR", "SYSTEMD_EDITOR", "KUBE_EDITOR", "SVN_EDITOR", "HGEDITOR", "GH_EDITOR", "FCEDIT", "CVSEDITOR",
	"GH_PAGER", "BAT_PAGER", "DELTA_PAGER", "AWS_PAGER", "PSQL_PAGER", "PERLDOC_PAGER", "SYSTEMD_LESS_PAGER",
	"CVS_RSH", "GIT_PROXY_COMMAND", "LESSEDIT", "DIFFPROG", "MERGE", "TERMINAL_EMULATOR",
}

func init() {
	for _, n := range moreCodeVariables {
		codeVariables[n] = true
	}
}

// readsIntoCode asks about builtins that set a code variable from input or
// from a computed value: read GIT_SSH_COMMAND, printf -v EDITOR ...,
// mapfile. The value is only known at run time.
func (c *checker) readsIntoCode(cl *call) {
	name := cl.name()
	if name != "read" && name != "printf" && name != "mapfile" && name != "readarray" {
		return
	}
	args := cl.args()
	for i, a := range args {
		if !a.lit {
			continue
		}
		target := a.val
		if name == "printf" {
			if !strings.HasPrefix(a.val, "-v") {
				continue
			}
			target = strings.TrimPrefix(a.val, "-v")
			if target == "" && i+1 < len(args) {
				target = args[i+1].val
			}
		}
		if j := strings.IndexByte(target, '['); j >= 0 {
			target = target[:j]
		}
		if codeVariables[target] || promptVariables[target] {
			c.runtime(fmt.Sprintf("%s sets %s, which is run as a command later, to a value only known at run time", name, target), a.written(), a.off)
			return
		}
	}
}

// computedOptionPrograms are programs with options that run commands
// (rsync -e, ssh -o ProxyCommand, rg --pre, man -P, fd -x, ...): a computed
// word that could be such an option is asked about.
var computedOptionPrograms = map[string]bool{
	"rsync": true, "ssh": true, "scp": true, "sftp": true, "rg": true, "man": true, "fd": true, "fdfind": true,
	"gdb": true, "psql": true, "sqlite3": true, "mysql": true, "zip": true, "nodemon": true, "hyperfine": true,
	"watchexec": true, "concurrently": true, "perf": true, "valgrind": true, "strace": true, "ltrace": true,
	"less": true, "vim": true, "nvim": true, "vi": true, "ex": true, "crontab": true, "parallel": true, "xargs": true,
}

func (c *checker) computedOptions(cl *call, name string) {
	if !computedOptionPrograms[name] {
		return
	}
	for _, a := range cl.args() {
		if a.lit && a.val == "--" {
			return
		}
		if c.computedOption(a) {
			c.runtime(fmt.Sprintf("%s has the argument %s, only known at run time, which could be an option that runs a command", name, pyRepr(short(a.val))), a.written(), a.off)
			return
		}
	}
}
