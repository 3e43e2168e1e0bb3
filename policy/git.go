package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// git can be told to run programs: configuration keys whose value is a
// command (core.pager, core.sshCommand, alias.x=!cmd, ...), options whose
// value is a command (--upload-pack, rebase --exec), and subcommands that
// run one (bisect run, submodule foreach). The policy checks those commands
// as shell code. Keys that make git run code the policy cannot see (hook
// directories, included config files, the ext:: transport) get rule
// "git-config": Ask, or Deny when only listed commands may run.

var gitGlobalSpec = optSpec{short: "Cc", long: []string{"git-dir", "work-tree", "namespace", "super-prefix", "config-env", "list-cmds"}}

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

// gitCommandKeys are configuration keys whose value git runs as a command.
// A "*" stands for one dotted component.
var gitCommandKeys = []string{
	"core.pager", "pager.*", "core.editor", "sequence.editor", "core.sshcommand", "diff.external",
	"core.askpass", "gpg.program", "gpg.*.program", "core.fsmonitor", "uploadpack.packobjectshook",
	"core.gitproxy", "diff.*.textconv", "diff.*.command", "merge.*.driver", "filter.*.clean",
	"filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper", "alias.*",
	"web.browser", "browser.*.cmd", "man.*.cmd", "difftool.*.cmd", "mergetool.*.cmd", "sendemail.sendmailcmd",
}

// gitHiddenCodeKeys make git run code from elsewhere: hooks, included
// configuration, the ext:: transport.
var gitHiddenCodeKeys = []string{"core.hookspath", "include.path", "includeif.*.path", "protocol.allow", "protocol.*.allow"}

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
		case o.name == "--config-env" && o.hasVal:
			key, _, _ := strings.Cut(o.val.val, "=")
			if gitKeyIn(key, gitCommandKeys) || gitKeyIn(key, gitHiddenCodeKeys) {
				c.gitConfigFinding(fmt.Sprintf("git --config-env=%s takes a command from the environment, which the policy cannot check.", short(o.val.val)), o.val.off)
			}
		}
	}
	switch sub {
	case "config":
		c.gitConfigCommand(cl, subArgs)
	case "clone", "fetch", "pull", "ls-remote", "archive", "push", "remote":
		for i, a := range subArgs {
			if !a.lit {
				continue
			}
			for _, name := range []string{"--upload-pack", "--receive-pack", "--exec"} {
				switch {
				case strings.HasPrefix(a.val, name+"="):
					c.code(cl, attached(a, a.val[len(name)+1:]), "git "+sub+" "+name)
				case a.val == name && i+1 < len(subArgs):
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
		opts, _ := parseOpts(subArgs, optSpec{short: "xsXS", long: []string{"exec", "onto", "strategy", "strategy-option", "gpg-sign"}})
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
		opts, _ := parseOpts(subArgs, optSpec{short: "xt", long: []string{"extcmd", "tool"}})
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
			if a.lit && (strings.HasPrefix(a.val, "--open-files-in-pager=") || strings.HasPrefix(a.val, "-O") && len(a.val) > 2) {
				_, v, ok := strings.Cut(a.val, "=")
				if !ok {
					v = a.val[2:]
				}
				c.code(cl, attached(a, v), "git grep -O")
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
