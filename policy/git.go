package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// git can be told to run programs: configuration keys whose value is a
// command (core.pager, core.sshCommand, alias.x=!cmd, ...), options whose
// value is a command (--upload-pack, rebase --exec), and subcommands that
// run one (bisect run, submodule foreach). The policy checks those commands
// as shell code. Keys that make git run code the policy cannot see (hook
// directories, included config files, the ext:: transport) get rule
// "git-config": Ask, or Deny when only listed commands may run.

// gitSplit finds git's global options and its subcommand.
func gitSplit(args []word) (globals []opt, sub string, subArgs []word) {
	globals, i := parseOpts(args, gitGlobalSpec)
	if i >= len(args) {
		return globals, "", nil
	}
	if !args[i].lit {
		return globals, "", args[i:]
	}
	return globals, args[i].val, args[i+1:]
}

// gitCommandKeys are configuration keys whose value git runs as a command
// (or as a program), from git's documentation (Documentation/config/*.adoc
// and git-config(1)). A "*" stands for one dotted component; the
// identity-specific forms of sendemail keys (sendemail.<identity>.toCmd)
// are included.
var gitCommandKeys = []string{
	"core.pager", "pager.*", "core.editor", "sequence.editor", "core.sshcommand", "core.askpass", "core.fsmonitor",
	"core.gitproxy", "core.alternaterefscommand", "diff.external", "diff.*.command", "diff.*.textconv",
	"merge.*.driver", "filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper",
	"credential.*.helper", "alias.*", "alias.*.command", "gpg.program", "gpg.*.program", "gpg.ssh.defaultkeycommand",
	"web.browser", "help.browser", "instaweb.browser", "instaweb.httpd", "browser.*.cmd", "browser.*.path",
	"man.*.cmd", "man.*.path", "man.viewer", "difftool.*.cmd", "difftool.*.path", "mergetool.*.cmd",
	"mergetool.*.path", "guitool.*.cmd", "sendemail.sendmailcmd", "sendemail.tocmd", "sendemail.cccmd",
	"sendemail.headercmd", "sendemail.smtpserver", "sendemail.*.sendmailcmd", "sendemail.*.tocmd",
	"sendemail.*.cccmd", "sendemail.*.headercmd", "sendemail.*.smtpserver", "imap.tunnel",
	"uploadpack.packobjectshook", "gc.recentobjectshook", "interactive.difffilter", "hook.*.command",
	"remote.*.uploadpack", "remote.*.receivepack", "http.uploadpack", "http.receivepack", "submodule.*.update",
	"trailer.*.cmd", "trailer.*.command", "tar.*.command",
}

// gitHiddenCodeKeys make git run code from elsewhere: hooks, included
// configuration, the ext:: transport.
var gitHiddenCodeKeys = []string{"core.hookspath", "include.path", "includeif.*.path", "protocol.allow", "protocol.*.allow", "init.templatedir"}

func gitKeyIn(key string, patterns []string) bool {
	key = strings.ToLower(key)
	for _, p := range patterns {
		if ok, _ := path.Match(strings.ReplaceAll(p, ".", "/"), strings.ReplaceAll(key, ".", "/")); ok {
			return true
		}
		// Subsection names may hold dots: includeIf.gitdir:~/a.b.path.
		if strings.Count(p, "*") == 1 {
			pre, suf, _ := strings.Cut(p, "*")
			if strings.HasPrefix(key, pre) && strings.HasSuffix(key, suf) && len(key) > len(pre)+len(suf) {
				return true
			}
		}
	}
	return false
}

var gitBooleans = map[string]bool{"": true, "true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "1": true, "0": true}

// gitConfig checks one configuration setting given on the command line.
func (c *checker) gitConfig(cl *call, key string, val word) {
	lkey := strings.ToLower(key)
	label := "git -c " + key
	switch {
	case gitKeyIn(lkey, gitHiddenCodeKeys):
		if strings.HasPrefix(lkey, "protocol.") && val.lit && strings.ToLower(val.val) != "always" {
			return
		}
		c.gitConfigFinding(fmt.Sprintf("Setting %s makes git run code the policy cannot see (hooks, included configuration or external transports). Run git without it, or ask the user.", key), val.off)
	case gitKeyIn(lkey, gitCommandKeys):
		if !val.lit {
			c.gitConfigFinding(fmt.Sprintf("%s sets a command for git to run, only known at run time (%s), so the policy cannot check it.", label, short(val.val)), val.off)
			return
		}
		v := strings.TrimSpace(val.val)
		switch {
		case (strings.HasPrefix(lkey, "pager.") || lkey == "core.fsmonitor") && gitBooleans[strings.ToLower(v)]:
			return
		case strings.HasPrefix(lkey, "alias."):
			if !strings.HasPrefix(v, "!") {
				c.nested("git "+v, gitValue(val, ""), append(slices.Clip(cl.wrappers), label), "the alias "+key)
				return
			}
			c.nested(v[1:], gitValue(val, "!"), append(slices.Clip(cl.wrappers), label), "the alias "+key)
			return
		case strings.HasPrefix(lkey, "submodule."):
			if strings.HasPrefix(v, "!") {
				c.nested(v[1:], gitValue(val, "!"), append(slices.Clip(cl.wrappers), label), "the submodule update command")
			}
			return
		case strings.HasSuffix(lkey, ".smtpserver") || lkey == "man.viewer" || strings.HasSuffix(lkey, "browser"):
			if !strings.ContainsRune(v, '/') {
				return // a host name or a known tool's name
			}
		case strings.HasPrefix(lkey, "credential."):
			if strings.HasPrefix(v, "!") {
				c.nested(v[1:], gitValue(val, "!"), append(slices.Clip(cl.wrappers), label), "the credential helper")
			} else if strings.ContainsRune(v, '/') {
				c.nested(v, val, append(slices.Clip(cl.wrappers), label), "the credential helper")
			}
			return
		case v == "":
			return
		}
		c.nested(v, val, append(slices.Clip(cl.wrappers), label), "the command set by "+key)
	}
}

// gitValue shifts a value word past a prefix such as "!".
func gitValue(w word, prefix string) word {
	i := strings.Index(w.val, prefix)
	if prefix == "" || i < 0 {
		w.exact = w.exact && prefix == ""
		return w
	}
	v := w
	v.val = w.val[i+len(prefix):]
	if w.exact {
		v.valOff = w.valOff + i + len(prefix)
	}
	return v
}

func (c *checker) gitConfigFinding(reason string, off int) {
	v := Ask
	if c.p.exclusive() {
		v = Deny
	}
	c.add(v, ruleGitConfig, reason, "", off)
}

// git checks what a git command line makes git run, and returns the command
// of git bisect run.
func (c *checker) git(cl *call, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	globals, sub, subArgs := gitSplit(args)
	for _, o := range globals {
		switch {
		case o.name == "-c" && o.hasVal:
			c.gitSetting(cl, o.val)
		case o.name == "--exec-path" && o.hasVal:
			c.gitConfigFinding(fmt.Sprintf("git --exec-path=%s makes git run its commands from that directory, which the policy cannot see.", short(o.val.val)), o.val.off)
		case o.name == "--config-env" && o.hasVal:
			key, _, _ := strings.Cut(o.val.val, "=")
			if gitKeyIn(key, gitCommandKeys) || gitKeyIn(key, gitHiddenCodeKeys) {
				c.gitConfigFinding(fmt.Sprintf("git --config-env=%s takes a command from the environment, which the policy cannot check.", short(o.val.val)), o.val.off)
			}
		}
	}
	if sub == "" && len(subArgs) > 0 {
		// A global option or the subcommand only known at run time: it
		// could be -c core.pager=..., --exec-path, an alias.
		w := subArgs[0]
		c.runtime(fmt.Sprintf("git has the argument %s, only known at run time, where an option or the subcommand goes", pyRepr(short(w.val))), w.written(), w.off)
		return call{}, false
	}
	c.gitComputedOptions(cl, sub, subArgs)
	switch sub {
	case "config":
		c.gitConfigCommand(cl, subArgs)
	case "init":
		opts, _ := gitSubOpts(sub, subArgs)
		if w, ok := optVal(opts, "--template"); ok {
			c.gitConfigFinding(fmt.Sprintf("git init --template=%s copies hooks from that directory, which git then runs and the policy cannot see.", short(w.val)), w.off)
		}
	case "send-email":
		opts, _ := gitSubOpts(sub, subArgs)
		for _, o := range opts {
			if o.hasVal && o.is("--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd") {
				c.code(cl, o.val, "git send-email "+o.name)
			}
			if o.hasVal && o.is("--smtp-server") && strings.ContainsRune(o.val.val, '/') {
				if n, ok := inner([]word{o.val}, "git send-email --smtp-server"); ok {
					c.runCall(n)
				}
			}
		}
	case "clone", "fetch", "pull", "ls-remote", "archive", "push", "remote":
		if sub == "clone" {
			opts, _ := gitSubOpts(sub, subArgs)
			if w, ok := optVal(opts, "--template"); ok {
				c.gitConfigFinding(fmt.Sprintf("git clone --template=%s copies hooks from that directory, which git then runs and the policy cannot see.", short(w.val)), w.off)
			}
		}
		for i, a := range subArgs {
			if !a.lit {
				continue
			}
			for _, name := range []string{"--upload-pack", "--receive-pack", "--exec"} {
				// git accepts any unambiguous prefix: --upload-pa=, --receive-pa=.
				v, eq, ok := longMatch(a.val, name, 3)
				switch {
				case !ok:
				case eq:
					c.code(cl, attached(a, v), "git "+sub+" "+name)
				case i+1 < len(subArgs):
					c.code(cl, subArgs[i+1], "git "+sub+" "+name)
				}
			}
			if sub == "clone" && i+1 < len(subArgs) {
				switch a.val {
				case "-u":
					c.code(cl, subArgs[i+1], "git clone -u")
				case "-c", "--config":
					c.gitSetting(cl, subArgs[i+1])
				}
			}
			if sub == "clone" && strings.HasPrefix(a.val, "--config=") {
				c.gitSetting(cl, attached(a, a.val[len("--config="):]))
			}
		}
	case "rebase":
		opts, _ := gitSubOpts(sub, subArgs)
		for _, o := range opts {
			if (o.name == "-x" || o.name == "--exec") && o.hasVal {
				c.code(cl, o.val, "git rebase --exec")
			}
		}
	case "submodule":
		_, i := parseOpts(subArgs, optSpec{})
		if i < len(subArgs) && subArgs[i].val == "foreach" {
			_, j := parseOpts(subArgs[i+1:], optSpec{})
			c.joinedCode(cl, subArgs[i+1+j:], "git submodule foreach")
		}
	case "bisect":
		if len(subArgs) > 1 && subArgs[0].val == "run" {
			return inner(subArgs[1:], "git bisect run")
		}
	case "difftool", "mergetool":
		opts, _ := gitSubOpts(sub, subArgs)
		if w, ok := optVal(opts, "-x", "--extcmd"); ok {
			c.code(cl, w, "git "+sub+" --extcmd")
		}
	case "filter-branch":
		for i, a := range subArgs {
			if a.lit && strings.HasPrefix(a.val, "--") && strings.HasSuffix(a.val, "-filter") && a.val != "--subdirectory-filter" && i+1 < len(subArgs) {
				c.code(cl, subArgs[i+1], "git filter-branch "+a.val)
			}
		}
	case "grep":
		for _, a := range subArgs {
			if !a.lit {
				continue
			}
			if v, eq, ok := longMatch(a.val, "--open-files-in-pager", 1); ok && eq {
				c.code(cl, attached(a, v), "git grep -O")
			} else if strings.HasPrefix(a.val, "-O") && len(a.val) > 2 {
				c.code(cl, attached(a, a.val[2:]), "git grep -O")
			}
		}
	}
	return call{}, false
}

// gitSetting checks a "key=value" setting.
func (c *checker) gitSetting(cl *call, kv word) {
	if !kv.lit {
		if kv.prefix != "" {
			key, _, _ := strings.Cut(kv.prefix, "=")
			if !gitKeyIn(key, gitCommandKeys) && !gitKeyIn(key, gitHiddenCodeKeys) {
				return
			}
		}
		c.gitConfigFinding(fmt.Sprintf("git -c %s is only known at run time and may make git run a command, which the policy cannot check.", short(kv.val)), kv.off)
		return
	}
	key, val, _ := strings.Cut(kv.val, "=")
	c.deferred(func() { c.gitConfig(cl, key, attached(kv, val)) })
}

// gitConfigCommand checks "git config KEY VALUE", which stores a setting
// that later git commands use.
func (c *checker) gitConfigCommand(cl *call, args []word) {
	opts, i := parseOpts(args, optSpec{short: "f", long: []string{"file", "blob", "type", "default", "comment", "value"}})
	for _, o := range opts {
		switch o.name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--unset", "--unset-all",
			"--remove-section", "--rename-section", "-e", "--edit", "--get-color", "--get-colorbool":
			return
		}
	}
	operands := args[i:]
	if len(operands) > 0 && operands[0].lit {
		switch operands[0].val {
		case "set":
			_, j := parseOpts(operands[1:], optSpec{long: []string{"value", "comment", "type"}})
			operands = operands[1+j:]
		case "get", "list", "unset", "rename-section", "remove-section", "edit":
			return
		}
	}
	if len(operands) < 2 {
		return
	}
	key := operands[0]
	if !key.lit {
		c.gitConfigFinding(fmt.Sprintf("git config sets %s, which is only known at run time, so the policy cannot tell whether git will run it as a command.", short(key.val)), key.off)
		return
	}
	c.deferred(func() { c.gitConfig(cl, key.val, operands[1]) })
}

// gitComputedOptions asks about a git subcommand argument only known at run
// time where it could be an option that runs a command: "git rebase
// $(echo --exec=...)". Plain variables are probed by deny patterns; a
// command substitution is only known when it runs.
func (c *checker) gitComputedOptions(cl *call, sub string, args []word) {
	switch sub {
	case "rebase", "clone", "fetch", "pull", "ls-remote", "archive", "push", "remote", "send-email", "difftool", "grep", "submodule", "filter-branch", "config", "init":
	default:
		return
	}
	for _, a := range args {
		if a.lit {
			continue
		}
		if c.computedOption(a) {
			c.runtime(fmt.Sprintf("git %s has the argument %s, only known at run time, which could be an option that runs a command", sub, pyRepr(short(a.val))), a.written(), a.off)
			return
		}
	}
}

// gitEnvironment checks the variables that make git run commands: the
// GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n settings,
// GIT_CONFIG_PARAMETERS, GIT_PROXY_COMMAND, GIT_EXEC_PATH, the
// configuration files and the template directory.
func (c *checker) gitEnvironment(assigns []word) {
	if len(assigns) == 0 {
		return
	}
	vals := map[string]word{}
	for _, a := range assigns {
		name, v, ok := strings.Cut(a.val, "=")
		if !ok || !strings.HasPrefix(name, "GIT_") {
			continue
		}
		vw := attached(a, v)
		vw.lit, vw.node, vw.off = a.lit, a.node, a.off
		vals[name] = vw
	}
	for name, v := range vals {
		switch {
		case name == "GIT_PROXY_COMMAND":
			c.deferred(func() { c.code(&call{}, v, "GIT_PROXY_COMMAND") })
		case name == "GIT_EXEC_PATH" || name == "GIT_TEMPLATE_DIR" || name == "GIT_CONFIG_GLOBAL" || name == "GIT_CONFIG_SYSTEM" || name == "GIT_CONFIG":
			c.gitConfigFinding(fmt.Sprintf("Setting %s makes git run code from elsewhere (its commands, hooks or configuration), which the policy cannot see. Run git without it.", name), v.off)
		case name == "GIT_CONFIG_PARAMETERS":
			c.gitParameters(v)
		case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
			key := v
			val, ok := vals["GIT_CONFIG_VALUE_"+strings.TrimPrefix(name, "GIT_CONFIG_KEY_")]
			if !key.lit {
				c.gitConfigFinding(fmt.Sprintf("%s is only known at run time and may make git run a command, which the policy cannot check.", name), key.off)
				continue
			}
			if !ok {
				continue
			}
			c.deferred(func() { c.gitConfig(&call{}, key.val, val) })
		}
	}
}

// gitParameters checks GIT_CONFIG_PARAMETERS, git's own list of
// shell-quoted 'key=value' or 'key'='value' settings.
func (c *checker) gitParameters(v word) {
	if !v.lit {
		c.gitConfigFinding("GIT_CONFIG_PARAMETERS is only known at run time and may make git run a command, which the policy cannot check.", v.off)
		return
	}
	f, err := syntax.NewParser().Parse(strings.NewReader("x "+v.val), "")
	if err != nil || len(f.Stmts) != 1 {
		c.gitConfigFinding("GIT_CONFIG_PARAMETERS could not be read, so the policy cannot tell which settings it makes.", v.off)
		return
	}
	ce, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		c.gitConfigFinding("GIT_CONFIG_PARAMETERS could not be read, so the policy cannot tell which settings it makes.", v.off)
		return
	}
	saved := c.src
	c.src = source{text: "x " + v.val, anchor: v.off, via: saved.via}
	defer func() { c.src = saved }()
	for _, w := range ce.Args[1:] {
		kv := c.resolve(w)
		kv.exact = false
		if !kv.lit {
			c.src = saved
			c.gitConfigFinding("GIT_CONFIG_PARAMETERS holds a setting only known at run time, which may make git run a command.", v.off)
			return
		}
		key, val, _ := strings.Cut(kv.val, "=")
		c.deferred(func() { c.gitConfig(&call{}, key, attached(kv, val)) })
	}
}

// hasCmdSubst reports whether a word holds a command or process
// substitution.
func hasCmdSubst(w word) bool {
	found := false
	if w.node != nil {
		syntax.Walk(w.node, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				found = true
			}
			return !found
		})
	}
	return found
}
