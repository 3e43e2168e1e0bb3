package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

// computedOption reports a word only known at run time that could turn out
// to be an option: it starts with a command substitution (or a "-")
// whose output the policy cannot vouch for. The output of a few programs
// that print names, paths and versions ("$(git branch --show-current)",
// "$(pwd)", "$(go env GOROOT)") is not an option; "$(echo -exec)" may be.
func (c *checker) computedOption(w word) bool {
	if w.lit || w.node == nil || w.prefix != "" && w.prefix[0] != '-' {
		return false
	}
	untrusted := false
	syntax.Walk(w.node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			for _, s := range x.Stmts {
				if !c.trustedProducer(s) {
					untrusted = true
				}
			}
			return false
		case *syntax.ProcSubst:
			untrusted = true
			return false
		}
		return !untrusted
	})
	return untrusted
}

// trustedProducer reports a command whose output is a name, a path or a
// version, never an option.
func (c *checker) trustedProducer(s *syntax.Stmt) bool {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(s.Redirs) > 0 {
		return false
	}
	var ws []string
	allLit := true
	for _, a := range ce.Args {
		w := c.resolve(a)
		allLit = allLit && w.lit
		ws = append(ws, w.val)
	}
	if !c.resolve(ce.Args[0]).lit {
		return false
	}
	name := identity(baseName(ws[0]))
	switch name {
	case "basename", "dirname", "realpath", "readlink", "date":
		return true // prints a path or a date, whatever its arguments
	}
	if !allLit {
		return false
	}
	switch name {
	case "pwd", "date", "whoami", "hostname", "uname", "nproc", "id", "mktemp", "realpath", "readlink", "basename", "dirname", "which":
		return true
	case "git":
		_, sub, rest := gitSplit(c.wordsOf(ce.Args[1:]))
		switch sub {
		case "rev-parse", "describe", "symbolic-ref", "merge-base", "hash-object", "write-tree", "rev-list":
			return true
		case "branch":
			return len(rest) == 1 && rest[0].val == "--show-current"
		case "config":
			return len(rest) > 0 && (rest[0].val == "--get" || rest[0].val == "get")
		}
	case "go":
		return len(ws) > 1 && (ws[1] == "env" || ws[1] == "list")
	case "npm", "pnpm", "yarn":
		return len(ws) > 1 && (ws[1] == "prefix" || ws[1] == "root" || ws[1] == "bin")
	case "python", "python3", "node", "ruby":
		return false
	}
	return false
}

func (c *checker) wordsOf(ws []*syntax.Word) []word {
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		out = append(out, c.resolve(w))
	}
	return out
}

// missingCommand records that a wrapper's command is missing from its
// arguments: xargs adds it from its input at run time.
func (c *checker) missingCommand(cl *call, label string) {
	if cl.moreArgs {
		c.runtime(fmt.Sprintf("%s runs a command that xargs adds from its input", label), cl.words[0].written(), cl.words[0].off)
	}
}

// runtime records code or a program that only exists at run time: Ask,
// or Deny when only listed commands may run.
func (c *checker) runtime(what, word string, off int) {
	c.dynamic(what+", so it is decided at run time and the policy cannot check it. Write the command out directly.", word, off)
}
