package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runCall judges a simple command, then the command it runs if it is a
// wrapper (sudo rm, env X=1 rm, xargs rm), and so on down.
func (c *checker) runCall(cl call) {
	if !c.enter() {
		return
	}
	defer c.leave()
	for len(cl.words) > 0 && c.fatal == nil {
		c.ncmds++
		c.judge(&cl)
		inner, ok := c.unwrap(&cl)
		if !ok {
			return
		}
		cl = inner
	}
}

// Option specs of the wrappers, shared with the interactive checks.
var (
	sudoSpec  = optSpec{short: "aCcDgpRrTtUu", long: []string{"auth-type", "login-class", "close-from", "chdir", "group", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"}}
	doasSpec  = optSpec{short: "uC"}
	envSpec   = optSpec{short: "uCSP", long: []string{"unset", "chdir", "split-string", "default-signal", "ignore-signal", "block-signal", "argv0"}, flags: []string{"ignore-environment", "null", "list-signal-handling", "debug", "help", "version"}}
	xargsSpec = optSpec{short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "max-lines", "process-slot-var", "eof"},
		flags: []string{"replace", "null", "no-run-if-empty", "interactive", "open-tty", "verbose", "exit", "show-limits", "help", "version"}}
)

// unwrap returns the command that cl runs, when cl is a wrapper. Along the
// way it checks shell code that cl runs from strings (bash -c, eval, find
// -exec groups, git aliases), which is judged in place.
func (c *checker) unwrap(cl *call) (call, bool) {
	head := cl.words[0]
	if !head.lit {
		return call{}, false
	}
	name := identity(baseName(head.val))
	args := cl.words[1:]
	inner := func(ws []word, label string) (call, bool) {
		if len(ws) == 0 {
			c.missingCommand(cl, label)
			return call{}, false
		}
		n := *cl
		n.words = placeholderCommand(ws, cl.placeholder)
		n.env = nil
		n.assigns = nil
		n.wrappers = append(slices.Clip(cl.wrappers), label)
		return n, true
	}
	if w, ok := wrapperSpecs[name]; ok {
		return c.tableWrapper(cl, name, w, args, inner)
	}
	if shells[name] {
		c.shell(cl, name, args)
		return call{}, false
	}
	if nonPOSIXShells[name] {
		c.foreignShell(cl, name, args)
		return call{}, false
	}
	switch name {
	case "env":
		return c.env(cl, args, inner)
	case "sudo", "doas":
		spec := sudoSpec
		if name == "doas" {
			spec = doasSpec
		}
		opts, i := parseOpts(args, spec)
		if hasOpt(opts, "-e", "--edit", "-l", "--list", "-v", "--validate", "-K", "--remove-timestamp", "-V", "--version", "-h", "--help", "-C", "-L") {
			return call{}, false
		}
		var env []string
		for i < len(args) && args[i].lit && isAssignment(args[i].val) {
			c.envAssignment(args[i])
			env = append(env, args[i].val)
			i++
		}
		n, ok := inner(args[i:], name)
		n.env = env
		return n, ok
	case "xargs":
		opts, i := parseOpts(args, xargsSpec)
		repl := ""
		if w, ok := optVal(opts, "-I", "--replace"); ok {
			repl = w.val
		} else if hasOpt(opts, "-i", "--replace") {
			repl = "{}"
		}
		if i >= len(args) {
			// With no command, xargs runs echo.
			n, ok := inner([]word{{val: "echo", prefix: "echo", lit: true, off: head.off}}, "xargs")
			n.moreArgs = true
			return n, ok
		}
		n, ok := inner(placeholderCommand(args[i:], repl), "xargs")
		n.placeholder = repl
		n.moreArgs = repl == ""
		return n, ok
	case "busybox", "toybox":
		if len(args) > 0 && strings.HasPrefix(args[0].val, "-") {
			return call{}, false
		}
		return inner(args, name)
	case "find":
		c.find(cl, args, inner)
	case "eval":
		c.eval(cl, args)
	case "source", ".":
		c.source(cl, args)
	case "trap":
		c.trap(cl, args)
	case "alias":
		for _, a := range args {
			if !a.lit {
				c.dynamic(fmt.Sprintf("alias defines %s, which is only known at run time, so the policy cannot check what the alias runs. Write the alias out literally.", short(a.val)), a.val, a.off)
				continue
			}
			if _, val, ok := strings.Cut(a.val, "="); ok && strings.TrimSpace(val) != "" {
				v := a
				v.val = val
				if a.exact {
					v.valOff = a.valOff + len(a.val) - len(val)
				}
				c.deferred(func() { c.nested(val, v, append(slices.Clip(cl.wrappers), "alias"), "the alias") })
			}
		}
	case "hash":
		opts, i := parseOpts(args, optSpec{short: "p"})
		if p, ok := optVal(opts, "-p"); ok && i < len(args) {
			// hash -p makes a name run another program: check that program.
			return inner([]word{p}, "hash -p")
		}
	case "watch":
		opts, i := parseOpts(args, optSpec{short: "nq", long: []string{"interval", "equexit"}})
		if hasOpt(opts, "-x", "--exec") {
			return inner(args[i:], "watch")
		}
		c.joinedCode(cl, args[i:], "watch")
	case "flock":
		_, i := parseOpts(args, optSpec{short: "Ew", long: []string{"timeout", "conflict-exit-code"}})
		if i >= len(args) || isDigits(args[i].val) {
			return call{}, false
		}
		rest := args[i+1:]
		if len(rest) >= 2 && (rest[0].val == "-c" || rest[0].val == "--command") {
			c.code(cl, rest[1], "flock -c")
			return call{}, false
		}
		if len(rest) > 0 && rest[0].val == "--" {
			rest = rest[1:]
		}
		return inner(rest, "flock")
	case "su", "runuser":
		return c.su(cl, name, args, inner)
	case "capsh":
		return c.capsh(cl, args, inner)
	case "sg":
		c.sg(cl, args)
	case "ip":
		return c.ipExec(args, inner)
	case "arch":
		return c.arch(args, inner)
	case "perf":
		return c.perf(args, inner)
	case "nix":
		return c.nixShell(args, inner)
	case "sops":
		c.sops(cl, args)
	case "dotenvx":
		if ws, ok := dotenvx(args); ok {
			return inner(ws, "dotenvx run")
		}
	case "bwrap":
		_, i := parseOpts(args, bwrapSpec)
		return inner(args[i:], "bwrap")
	case "rg":
		c.rgOptions(cl, args, inner)
	case "script":
		opts, _ := parseOpts(args, optSpec{short: "cEIOBTm", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format"}})
		if cmd, ok := optVal(opts, "-c", "--command"); ok {
			c.code(cl, cmd, "script -c")
		}
	case "parallel":
		c.parallel(cl, args)
	case "entr":
		opts, i := parseOpts(args, optSpec{})
		if hasOpt(opts, "-s") && i < len(args) {
			c.code(cl, args[i], "entr -s")
			return call{}, false
		}
		return inner(args[i:], "entr")
	case "nix-shell":
		opts, _ := parseOpts(args, optSpec{short: "pIA", long: []string{"run", "command", "packages", "attr", "arg", "argstr", "include"}})
		if cmd, ok := optVal(opts, "--run", "--command"); ok {
			c.code(cl, cmd, "nix-shell --run")
		}
	case "ssh", "scp", "sftp":
		c.sshOptions(cl, args)
	case "at", "batch":
		// at and batch read the commands they schedule from standard input,
		// or from -f FILE.
		opts, _ := parseOpts(args, optSpec{short: "qfmMtKlrd"})
		if !hasOpt(opts, "-f", "-l", "-r", "-d", "-c") {
			c.stdinProgram(cl, name)
		}
	case "vi", "vim", "nvim", "ex", "view", "rvim", "gvim", "vimdiff", "gvimdiff", "nvim-qt", "evim", "exim":
		c.vim(cl, name, args)
	case "crontab":
		c.crontab(cl, args)
	case "tmux":
		c.tmux(cl, args)
	case "screen":
		return c.screen(cl, args, inner)
	case "expect":
		for i, a := range args {
			if a.lit && a.val == "-c" && i+1 < len(args) {
				c.dynamic("expect -c runs a Tcl program, which can start commands (spawn, exec) the policy cannot check. Run the commands directly, or ask the user.", args[i+1].written(), args[i+1].off)
			}
		}
	case "fd", "fdfind":
		c.fdExec(cl, args, inner)
	case "man":
		opts, _ := permutedOptions(args, optSpec{short: "PpMmLSseRrCIK", long: []string{"pager", "preprocessor", "manpath", "systems", "locale", "sections", "extension", "encoding", "config-file", "prompt"}})
		if w, ok := optVal(opts, "-P", "--pager"); ok {
			c.code(cl, w, "man --pager")
		}
	case "less", "more":
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.val, "+") && strings.Contains(a.val, "!") {
				v := attached(a, a.val[strings.IndexByte(a.val, '!')+1:])
				c.code(cl, v, name+" +!")
			}
		}
	case "psql", "sqlite3", "mysql", "mariadb", "gdb", "lftp":
		c.clientShellEscape(cl, name, args)
	case "rsync":
		opts, _ := parseOpts(args, optSpec{short: "eBfMT", long: []string{"rsh", "rsync-path", "filter", "exclude", "include", "files-from", "temp-dir", "block-size"}})
		if cmd, ok := optVal(opts, "-e", "--rsh"); ok {
			c.code(cl, cmd, "rsync -e")
		}
	case "tar":
		c.tarOptions(cl, args)
	case "git":
		return c.git(cl, args, inner)
	default:
		if ws, label, ok := runnerCommand(name, args); ok {
			return inner(ws, label)
		}
		if code, label, ok := runnerCode(name, args); ok {
			c.code(cl, code, label)
			return call{}, false
		}
		c.unknownWrapper(cl, name)
	}
	return call{}, false
}

// placeholderCommand marks the command word as dynamic when it holds the
// placeholder that find -exec or xargs -I replaces with input: the program
// is then only known at run time.
func placeholderCommand(ws []word, placeholder string) []word {
	if len(ws) == 0 || placeholder == "" || !ws[0].lit || !strings.Contains(ws[0].val, placeholder) {
		return ws
	}
	out := slices.Clone(ws)
	out[0].lit = false
	return out
}

func isAssignment(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// envAssignment checks a NAME=value word given to env or sudo.
func (c *checker) envAssignment(w word) {
	name, val, _ := strings.Cut(w.val, "=")
	v := w
	v.val = val
	if w.exact {
		v.valOff = w.valOff + len(name) + 1
	}
	c.deferred(func() { c.codeVariable(name, v) })
}

func (c *checker) env(cl *call, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	opts, i := parseOpts(args, envSpec)
	if i < len(args) && args[i].lit && args[i].val == "-" {
		i++ // "-" is -i
	}
	envStart := i
	var env []string
	for i < len(args) && args[i].lit && strings.Contains(args[i].val, "=") {
		if isAssignment(args[i].val) {
			c.envAssignment(args[i])
		} else if strings.HasPrefix(args[i].val, "BASH_FUNC_") {
			c.exportedFunction(args[i])
		}
		env = append(env, args[i].val)
		i++
	}
	if split, ok := optVal(opts, "-S", "--split-string"); ok {
		// env -S splits its string into words, much as a shell would.
		code := split.val
		for _, a := range args[i:] {
			if a.lit {
				q, err := syntax.Quote(a.val, syntax.LangBash)
				if err != nil {
					q = a.val
				}
				code += " " + q
			} else {
				code += " " + a.val
			}
		}
		if !split.lit {
			c.dynamic(fmt.Sprintf("env -S runs %s, which is only known at run time, so the policy cannot check it. Write the command out directly.", short(split.val)), split.val, split.off)
			return call{}, false
		}
		if len(args[i:]) > 0 {
			split.exact = false
		}
		c.nested(code, split, append(slices.Clip(cl.wrappers), "env -S"), "the env -S string")
		return call{}, false
	}
	n, ok := inner(args[i:], "env")
	if ok {
		n.env = env
		n.assigns = args[envStart:i]
		if d, has := optVal(opts, "-C", "--chdir"); has {
			n.dir = d.val
			if cl.dir != "" && !strings.Contains(cl.dir, "\n") {
				n.dir = joinDir(cl.dir, d.val)
			}
		}
	}
	return n, ok
}

// shell handles sh, bash and the other shells: a -c string is checked as
// code, and so is a program read from a here-document, a here-string or a
// literal echo piped in. A program only known at run time (a pipe from curl,
// a variable) cannot be checked.
func (c *checker) shell(cl *call, name string, args []word) {
	cmdMode, stdinMode, info, i := shellOptions(args)
	if info {
		return
	}
	label := name
	if cmdMode {
		if i >= len(args) {
			c.missingCommand(cl, name+" -c")
			return
		}
		w := args[i]
		if w.lit && strings.HasPrefix(w.val, "--command=") {
			w = attached(w, w.val[len("--command="):])
		}
		c.code(cl, w, name+" -c")
		return
	}
	if i < len(args) && !stdinMode {
		script := args[i]
		switch {
		case script.procSu:
			c.dynamic(fmt.Sprintf("%s runs a script produced by %s, which the policy cannot check. Save the script to a file and inspect it, or run its commands directly.", label, short(script.val)), script.val, script.off)
		case script.lit && script.val == "+":
			// "+" ends the options, like "-": the program is read from
			// standard input.
			c.stdinProgram(cl, label)
		default:
			// /dev/stdin, /dev/fd/N, /proc/self/fd/N: the program a
			// descriptor reads; any other file is not analysed.
			c.descriptorProgram(cl, script, label)
		}
		return
	}
	c.stdinProgram(cl, label)
}

// stdinProgram checks the program a shell reads on standard input.
func (c *checker) stdinProgram(cl *call, label string) {
	in := cl.stdin
	if in != nil && in.pipe != nil {
		in = c.pipeSource(in.pipe)
	}
	switch {
	case in != nil && in.known:
		w := word{val: in.text, lit: true, off: in.off, exact: in.exact, valOff: in.valOff}
		c.nested(in.text, w, append(slices.Clip(cl.wrappers), label+" <stdin>"), "the program read by "+label)
	case cl.stdinPipe:
		what := "a pipe"
		if in != nil && in.written != "" {
			what = pyRepr(short(in.written))
		}
		c.dynamic(fmt.Sprintf("The shell %s would run a program read from %s, which the policy cannot check. Run the commands directly instead of piping them into a shell.", pyRepr(label), what), cl.words[0].written(), cl.words[0].off)
	case cl.stdinRedir && in != nil:
		c.dynamic(fmt.Sprintf("The shell %s would run a program from %s that is only known at run time, which the policy cannot check. Run the commands directly.", pyRepr(label), in.written), cl.words[0].written(), cl.words[0].off)
	}
}

// code checks a word that a command runs as shell code.
func (c *checker) code(cl *call, w word, label string) {
	if w.lit && cl.placeholder != "" && strings.Contains(w.val, cl.placeholder) {
		c.runtime(fmt.Sprintf("%s runs shell code into which %s puts its input in place of %s", label, cl.wrappers[len(cl.wrappers)-1], cl.placeholder), w.written(), w.off)
		return
	}
	if !w.lit {
		c.dynamic(fmt.Sprintf("%s runs shell code that is only known at run time (%s), so the policy cannot check it. Write the commands out directly.", label, short(w.val)), w.val, w.off)
		return
	}
	c.inherit = cl
	c.nested(w.val, w, append(slices.Clip(cl.wrappers), label), "the code run by "+label)
}

// joinedCode checks words that a command joins with spaces and runs as
// shell code (eval, watch, parallel).
func (c *checker) joinedCode(cl *call, ws []word, label string) {
	if len(ws) == 0 {
		return
	}
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if !w.lit {
			c.dynamic(fmt.Sprintf("%s runs shell code built from %s, which is only known at run time, so the policy cannot check it. Write the commands out directly.", label, short(w.val)), w.val, w.off)
			return
		}
		parts = append(parts, w.val)
	}
	code := strings.Join(parts, " ")
	w := ws[0]
	if len(ws) > 1 {
		w.exact = false
	}
	w.val = code
	c.inherit = cl
	c.nested(code, w, append(slices.Clip(cl.wrappers), label), "the code run by "+label)
}

func (c *checker) eval(cl *call, args []word) {
	if len(args) > 0 && args[0].lit && args[0].val == "--" {
		args = args[1:]
	}
	c.joinedCode(cl, args, "eval")
}

func (c *checker) source(cl *call, args []word) {
	if len(args) == 0 {
		return
	}
	if args[0].lit && args[0].val == "--" && len(args) > 1 {
		args = args[1:]
	}
	f := args[0]
	switch {
	case f.procSu:
		c.dynamic(fmt.Sprintf("%s reads a script produced by %s, which the policy cannot check. Save the script to a file and inspect it, or run its commands directly.", cl.words[0].val, short(f.val)), f.val, f.off)
	case f.lit && f.val == "-":
		c.stdinProgram(cl, cl.words[0].val)
	default:
		c.descriptorProgram(cl, f, cl.words[0].val)
	}
}

func (c *checker) trap(cl *call, args []word) {
	if len(args) > 0 && args[0].lit && args[0].val == "--" {
		args = args[1:]
	}
	if len(args) < 2 {
		return
	}
	action := args[0]
	if action.lit && (action.val == "-" || action.val == "" || strings.HasPrefix(action.val, "-")) {
		return
	}
	c.deferred(func() { c.code(cl, action, "trap") })
}

// find runs the commands of its -exec, -execdir, -ok and -okdir actions.
func (c *checker) find(cl *call, args []word, inner func([]word, string) (call, bool)) {
	if c.findComputed(args) {
		return
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			continue
		}
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && (args[j].val == ";" || args[j].val == "+" && j > i+1 && args[j-1].val == "{}")) {
			j++
		}
		if n, ok := inner(placeholderCommand(args[i+1:j], "{}"), "find "+a.val); ok {
			n.placeholder = "{}"
			c.runCall(n)
		}
		i = j
	}
}

// parallel (GNU) joins its command words and runs them with a shell, once
// per input.
func (c *checker) parallel(cl *call, args []word) {
	_, i := parseOpts(args, optSpec{short: "jPadEInNLS", long: []string{"jobs", "arg-file", "delimiter", "colsep", "tmpdir", "results", "joblog", "workdir", "sshlogin", "max-args", "max-lines", "timeout", "eta"}})
	j := i
	for j < len(args) && !(args[j].lit && strings.HasPrefix(args[j].val, ":::")) {
		j++
	}
	if j == i {
		c.dynamic("parallel reads the commands it runs from its input, which the policy cannot check. Give the command on the command line.", cl.words[0].written(), cl.words[0].off)
		return
	}
	if ws := args[i:j]; len(ws) > 0 && ws[0].lit && shells[identity(baseName(ws[0].val))] {
		if cmdMode, _, _, k := shellOptions(ws[1:]); cmdMode && k >= len(ws)-1 {
			c.runtime("parallel runs a shell -c whose code is the input it adds", ws[0].written(), ws[0].off)
			return
		}
	}
	if ws := args[i:j]; len(ws) > 1 && ws[0].lit && shells[identity(baseName(ws[0].val))] {
		for _, w := range ws[1:] {
			if w.lit && strings.Contains(w.val, "{") {
				c.runtime("parallel runs a shell whose code holds its input in place of "+pyRepr(w.val), w.written(), w.off)
				return
			}
		}
	}
	c.joinedCode(cl, args[i:j], "parallel")
}

// sshOptions checks -o ProxyCommand=... and similar options, which run a
// local command through a shell, and scp/sftp -S, which names the ssh
// program.
func (c *checker) sshOptions(cl *call, args []word) {
	opts, i := parseOpts(args, optSpec{short: "BbcDEeFIiJLlmOopQRSWw"})
	if cl.name() == "ssh" && i+1 < len(args) {
		// The remote command runs in a shell: on another machine, or on
		// this one (ssh localhost). It is checked like bash -c.
		c.joinedCode(cl, args[i+1:], "ssh "+args[i].val)
	}
	for _, o := range opts {
		if !o.hasVal {
			continue
		}
		switch o.name {
		case "-o":
			key, val, ok := strings.Cut(o.val.val, "=")
			if !ok {
				key, val, ok = strings.Cut(o.val.val, " ")
			}
			if !o.val.lit {
				if strings.Contains(strings.ToLower(o.val.val), "command") {
					c.dynamic(fmt.Sprintf("%s -o %s is only known at run time and may run a local command, which the policy cannot check.", cl.words[0].val, short(o.val.val)), o.val.val, o.val.off)
				}
				continue
			}
			switch strings.ToLower(strings.TrimSpace(key)) {
			case "proxycommand", "localcommand", "knownhostscommand":
				if ok && strings.TrimSpace(val) != "" && strings.ToLower(strings.TrimSpace(val)) != "none" {
					v := attached(o.val, val)
					v.exact = false
					c.nested(val, v, append(slices.Clip(cl.wrappers), cl.words[0].val+" -o "+key), "the "+key)
				}
			}
		case "-S":
			if cl.name() != "ssh" {
				c.code(cl, o.val, cl.words[0].val+" -S")
			}
		}
	}
}

// runnerCommand recognises tools that run a command in a prepared
// environment: uv run, poetry run, bundle exec, npx, op run -- ...
func runnerCommand(name string, args []word) ([]word, string, bool) {
	sub := ""
	if len(args) > 0 && args[0].lit {
		sub = args[0].val
	}
	afterDashes := func(ws []word) ([]word, bool) {
		for i, w := range ws {
			if w.lit && w.val == "--" {
				return ws[i+1:], true
			}
		}
		return nil, false
	}
	switch {
	case name == "uv" && sub == "run":
		_, i := parseOpts(args[1:], optSpec{short: "p", long: []string{"with", "with-editable", "with-requirements", "python", "package", "directory", "project", "env-file", "extra", "group", "only-group", "no-group", "index", "default-index", "index-url", "extra-index-url", "find-links", "config-file", "cache-dir"}})
		return args[1+i:], "uv run", true
	case name == "uvx" || name == "uv" && sub == "tool" && len(args) > 1 && args[1].val == "run":
		rest := args
		if name == "uv" {
			rest = args[2:]
		}
		_, i := parseOpts(rest, optSpec{short: "p", long: []string{"from", "with", "with-editable", "with-requirements", "python", "index", "index-url", "extra-index-url"}})
		return rest[i:], "uvx", true
	case (name == "poetry" || name == "pipenv" || name == "pdm" || name == "rye" || name == "hatch") && sub == "run":
		_, i := parseOpts(args[1:], optSpec{})
		return args[1+i:], name + " run", true
	case name == "bundle" && (sub == "exec" || sub == "ex"):
		_, i := parseOpts(args[1:], optSpec{})
		return args[1+i:], "bundle exec", true
	case (name == "pnpm" || name == "yarn") && sub == "exec":
		_, i := parseOpts(args[1:], optSpec{})
		return args[1+i:], name + " exec", true
	case name == "bunx" || name == "pnpx" || (name == "pnpm" || name == "yarn") && sub == "dlx":
		rest := args
		if name == "pnpm" || name == "yarn" {
			rest = args[1:]
		}
		_, i := parseOpts(rest, optSpec{short: "p", long: []string{"package"}})
		return rest[i:], name, true
	case name == "xcrun":
		opts, i := parseOpts(args, optSpec{long: []string{"sdk", "toolchain"}, flags: []string{"find", "show-sdk-path", "show-sdk-version", "log", "verbose", "no-cache", "kill-cache", "run"}})
		if hasOpt(opts, "-f", "--find", "--show-sdk-path", "--show-sdk-version", "--show-sdk-platform-path", "-h", "--help", "--version") {
			return nil, "", false
		}
		return args[i:], "xcrun", true
	case name == "npx" || name == "npm" && (sub == "exec" || sub == "x"):
		rest := args
		if name == "npm" {
			rest = args[1:]
		}
		opts, i := parseOpts(rest, optSpec{short: "pc", long: []string{"package", "call"}})
		if hasOpt(opts, "-c", "--call") {
			return nil, "", false
		}
		return rest[i:], name, true
	case name == "conda" && sub == "run":
		_, i := parseOpts(args[1:], optSpec{short: "np", long: []string{"name", "prefix", "cwd"}})
		return args[1+i:], "conda run", true
	case name == "direnv" && sub == "exec" && len(args) > 2:
		return args[2:], "direnv exec", true
	case name == "mise" && (sub == "exec" || sub == "x"), name == "dotenv",
		name == "op" && sub == "run", name == "doppler" && sub == "run", name == "infisical" && sub == "run",
		name == "aws-vault" && sub == "exec":
		if rest, ok := afterDashes(args); ok {
			return rest, name, true
		}
	case name == "nix" && sub == "develop":
		for i, w := range args {
			if w.lit && (w.val == "-c" || w.val == "--command") {
				return args[i+1:], "nix develop", true
			}
		}
	}
	return nil, "", false
}

// runnerCode recognises tools that run a string as shell code: npm exec -c,
// npx -c.
func runnerCode(name string, args []word) (word, string, bool) {
	rest := args
	if name == "npm" {
		if len(args) == 0 || (args[0].val != "exec" && args[0].val != "x") {
			return word{}, "", false
		}
		rest = args[1:]
	} else if name != "npx" {
		return word{}, "", false
	}
	opts, _ := parseOpts(rest, optSpec{short: "pc", long: []string{"package", "call"}})
	if w, ok := optVal(opts, "-c", "--call"); ok {
		return w, name + " -c", true
	}
	return word{}, "", false
}

// nested checks code that will run as shell code. w locates the code in the
// command: exactly when w.exact, otherwise at w.off.
func (c *checker) nested(code string, w word, via []string, what string) {
	ctx := c.inherited()
	if !c.enter() {
		return
	}
	defer c.leave()
	saved := c.src
	c.src = source{text: code, exact: w.exact, base: w.valOff, anchor: w.off, via: via}
	if f := c.parse(code, what); f != nil {
		c.stmts(f.Stmts, ctx)
	}
	c.src = saved
}

// nestedDocument checks a string that the shell expands like a
// double-quoted string (a prompt variable): its command substitutions run.
func (c *checker) nestedDocument(doc string, w word, via string) {
	if !c.enter() {
		return
	}
	defer c.leave()
	c.budget -= len(doc)
	if c.budget < 0 {
		c.tooDeep(w.off)
		return
	}
	if d, at := nestingDepth(`"`+doc, maxDepth); d > maxDepth {
		c.tooDeep(c.mapOff(at))
		return
	}
	saved := c.src
	c.src = source{text: doc, exact: w.exact, base: w.valOff, anchor: w.off, via: append(slices.Clip(saved.via), via)}
	if off, why, bad := divergence(doc); bad {
		c.diverges(off, why, "the value of "+strings.TrimSuffix(via, "="))
		c.src = saved
		return
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	dw, err := p.Document(strings.NewReader(doc))
	if err != nil {
		c.parseError(err, "the value of "+strings.TrimSuffix(via, "="))
	} else if dw != nil {
		c.visitWordIn(dw, true) // a document is expanded like double-quoted text
	}
	c.src = saved
}

// short shortens text for a message.
func short(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}
