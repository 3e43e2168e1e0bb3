package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The approval tiers (Rules.Approval), in the spirit of gptme's shell
// confirmation: a command that only reads, with flags known to be harmless,
// is allowed; a known destructive command is denied with a safer
// alternative; anything else gets Ask. They are judged on each command the
// policy finds, so "ls && rm -rf /" is denied and "ls | wc -l" is allowed.

// approve classifies one command.
func (c *checker) approve(cl *call) finding {
	if f, bad := destructive(cl); bad {
		return f
	}
	if cl.dir == "" {
		cl.dir = c.cwd
	}
	c.changeDir(cl)
	reason := readOnly(cl)
	if reason == "" && len(cl.wrappers) > 0 && cl.wrappers[len(cl.wrappers)-1] == "xargs" {
		reason = c.secretProducer(cl)
	}
	if reason == "" {
		return finding{d: Decision{Verdict: Allow}}
	}
	head := cl.words[0]
	return finding{d: Decision{Verdict: Ask, Rule: ruleApprovalAsk, Word: head.written(), Reason: reason}, off: head.off}
}

func destroy(w word, reason string) (finding, bool) {
	return finding{d: Decision{Verdict: Deny, Rule: ruleDestructive, Word: w.written(), Reason: reason}, off: w.off}, true
}

// destructive recognises commands that destroy work or data.
func destructive(cl *call) (finding, bool) {
	head := cl.words[0]
	name := programName(cl.name())
	args := cl.args()
	switch {
	case name == "git":
		return gitDestructive(cl, args)
	case name == "rm":
		return rmDestructive(args)
	case name == "chmod":
		return chmodDestructive(args)
	case name == "pkill" || name == "killall":
		return destroy(head, fmt.Sprintf("%s kills every process whose name matches, which can hit unrelated programs. Find the process with 'pgrep -a NAME' (or 'ps aux | grep NAME'), then stop that one with 'kill PID'.", pyRepr(head.val)))
	case name == "kill":
		for i, a := range args {
			if i == 0 && strings.HasPrefix(a.val, "-") && a.val != "-1" && a.val != "--" {
				continue
			}
			if a.lit && a.val == "-1" && i > 0 {
				return destroy(a, "'kill -1' signals every process you are allowed to signal. Kill a specific PID instead (find it with 'pgrep -a NAME').")
			}
		}
	case name == "shutdown" || name == "reboot" || name == "halt" || name == "poweroff" || name == "init" && len(args) > 0 || name == "kexec":
		return destroy(head, fmt.Sprintf("%s would stop or restart the machine, ending everyone's work on it. Ask the user to do it.", pyRepr(head.val)))
	case name == "systemctl" || name == "loginctl" || name == "telinit":
		if d, at := allStopping.deniedEquivalent(cl, name); d != "" {
			return destroy(at, fmt.Sprintf("%s would stop or restart the machine, ending everyone's work on it. Ask the user to do it.", pyRepr(short(cl.text()))))
		}
	case name == "find":
		return findDestructive(cl)
	case name == "tee" || name == "cp" || name == "install" || name == "truncate" || name == "shred" || name == "mv":
		for _, a := range args {
			if a.lit && blockDevice(a.val) {
				return destroy(a, fmt.Sprintf("Writing to the disk device %s destroys the data on it. Ask the user to do it.", pyRepr(a.val)))
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "wipefs" || name == "mkswap" || name == "blkdiscard" || name == "mke2fs" ||
		name == "sgdisk" && hasPrefixArg(args, "-Z") || name == "sgdisk" && hasPrefixArg(args, "--zap"):
		return destroy(head, fmt.Sprintf("%s erases a file system. Ask the user to do it.", pyRepr(head.val)))
	case name == "dd":
		for _, a := range args {
			if a.lit && strings.HasPrefix(a.val, "of=/dev/") && !harmlessTarget(a.val[3:]) && a.val != "of=/dev/zero" && a.val != "of=/dev/null" {
				return destroy(a, "Writing to a disk device with 'dd' destroys the data on it. Ask the user to do it.")
			}
		}
	}
	if shells[name] && remoteScript(cl) {
		return destroy(head, fmt.Sprintf("%s would run a script downloaded from the network, which nobody has reviewed. Save it to a file, read it, then run the file.", pyRepr(head.val)))
	}
	if cl.stdinPipe && readsProgram(cl) {
		return destroy(head, fmt.Sprintf("Piping into %s runs code nobody has reviewed. Save it to a file, read it, then run the file; or run the commands directly.", pyRepr(head.val)))
	}
	return finding{}, false
}

// rootLike reports whether an rm target stands for a whole tree: the root,
// a top-level system directory, the home directory, the current or parent
// directory, or everything in one of them.
func rootLike(w word) bool {
	v := w.val
	if !w.lit {
		switch strings.Trim(v, `"'`) {
		case "$HOME", "${HOME}", "$HOME/", "${HOME}/", "$HOME/*", "${HOME}/*", "*", "./*", "/*", "~/*", ".*", "$HOME/.*", "${HOME}/.*":
			return true
		}
		// A glob over a whole tree: /usr/*, ~/.*, ../*, /{usr,etc}.
		if g, ok := globOnly(w); ok {
			for _, alt := range expandBraces(g, 64) {
				if !strings.ContainsAny(alt, "*?[") {
					if rootLike(word{val: unescape(alt, `*?[]{}\`), lit: true}) {
						return true
					}
					continue
				}
				if globRootLike(alt) {
					return true
				}
			}
		}
		return false
	}
	for {
		t := strings.TrimSuffix(strings.TrimSuffix(v, "/*"), "/.")
		t = strings.TrimRight(t, "/")
		if t == v || t == "" {
			v = t
			break
		}
		v = t
	}
	switch v {
	case "", ".", "..", "~", "*", "/", "/.", "/..":
		return true
	}
	if parentsOnly(v) {
		return true // ../.., ./../..
	}
	return strings.HasPrefix(v, "/") && strings.Count(v, "/") == 1 && v != "/tmp"
}

// parentsOnly reports a path made only of "." and ".." components.
func parentsOnly(v string) bool {
	for _, part := range strings.Split(strings.Trim(v, "/"), "/") {
		if part != ".." && part != "." && part != "" {
			return false
		}
	}
	return true
}

// globRootLike reports a glob pattern that stands for everything in a
// whole tree: its directory is root-like and its last component matches
// everything ("*", ".*", "*.*", "?*").
func globRootLike(g string) bool {
	dir, last := "", g
	if i := strings.LastIndexByte(g, '/'); i >= 0 {
		dir, last = g[:i], g[i+1:]
		if dir == "" {
			dir = "/"
		}
	}
	if dir == "/" && !strings.ContainsAny(strings.TrimPrefix(g, "/"), "/") {
		return true // /u?r, /[a-z]*: any top-level directory
	}
	if strings.Trim(last, "*?.") != "" && last != "[!.]*" {
		return false
	}
	if dir == "" {
		return true
	}
	return !strings.ContainsAny(dir, "*?[") && rootLike(word{val: dir, lit: true})
}

func rmDestructive(args []word) (finding, bool) {
	recursive := false
	var targets []word
	options := true
	for _, a := range args {
		switch {
		case options && a.lit && a.val == "--":
			options = false
		case options && a.lit && strings.HasPrefix(a.val, "--"):
			switch a.val {
			case "--recursive":
				recursive = true
			case "--no-preserve-root":
				return destroy(a, "'rm --no-preserve-root' removes the protection against deleting '/'. Delete specific paths inside the project instead.")
			}
		case options && a.lit && strings.HasPrefix(a.val, "-") && len(a.val) > 1:
			if strings.ContainsAny(a.val[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return finding{}, false
	}
	for _, t := range targets {
		if rootLike(t) {
			return destroy(t, fmt.Sprintf("'rm -r' on %s would delete a whole tree (the root, a system or home directory, or everything here). Delete specific paths inside the project instead, such as 'rm -r ./build'.", pyRepr(t.val)))
		}
		if varThenSlash(t) {
			return destroy(t, fmt.Sprintf("'rm -r %s' deletes from '/' if the variable is empty or unset. Write \"${VAR:?}\" so that the shell stops when it is unset, or write the path out.", t.val))
		}
	}
	return finding{}, false
}

func chmodDestructive(args []word) (finding, bool) {
	_, i := parseOpts(args, optSpec{long: []string{"reference"}})
	if i >= len(args) || !args[i].lit {
		return finding{}, false
	}
	mode := args[i]
	if worldWritable(mode.val) {
		return destroy(mode, fmt.Sprintf("'chmod %s' lets every user on the machine change the file. Use 'chmod 755' for programs and directories, 'chmod 644' for files, or 'chmod u+x' to make a script executable.", mode.val))
	}
	return finding{}, false
}

// worldWritable reports whether a chmod mode grants write permission to
// others.
func worldWritable(mode string) bool {
	if isDigits(mode) {
		last := mode[len(mode)-1]
		return last == '2' || last == '3' || last == '6' || last == '7'
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.IndexAny(clause, "+-=")
		if who < 0 || clause[who] == '-' {
			continue
		}
		if strings.ContainsAny(clause[:who], "oa") && strings.ContainsRune(clause[who:], 'w') {
			return true
		}
	}
	return false
}

func gitDestructive(cl *call, args []word) (finding, bool) {
	_, sub, subArgs := gitSplit(args)
	// Options are parsed as git parses them: clustered short options
	// ("-Av"), abbreviated long options ("--al", "--har").
	opts, operands := gitSubOpts(sub, subArgs)
	optWord := func(o opt) word {
		for _, a := range subArgs {
			if a.lit && strings.HasPrefix(a.val, "-") && (strings.HasPrefix(o.name, "--") && strings.HasPrefix(a.val, "--") || !strings.HasPrefix(a.val, "--") && strings.Contains(a.val, o.name[1:])) {
				return a
			}
		}
		return word{val: o.name, lit: true}
	}
	has := func(names ...string) (word, bool) {
		for _, o := range opts {
			if o.is(names...) {
				return optWord(o), true
			}
		}
		for _, a := range operands {
			if a.lit && slices.Contains(names, a.val) {
				return a, true
			}
		}
		return word{}, false
	}
	short := func(flag byte) (word, bool) { return has("-" + string(flag)) }
	bulk := "Bulk staging can commit files you did not mean to, such as secrets or build output. Stage the files you changed by name ('git add path/to/file'), then commit."
	switch sub {
	case "add":
		if w, ok := has(".", "-A", "--all", ":/", "./", "*", ":"); ok {
			return destroy(w, bulk)
		}
		for _, a := range subArgs {
			if !a.lit && (a.val == "*" || a.val == ".") {
				return destroy(a, bulk)
			}
		}
	case "commit":
		if w, ok := short('a'); ok {
			return destroy(w, bulk)
		}
		if w, ok := has("--all"); ok {
			return destroy(w, bulk)
		}
	case "reset":
		if w, ok := has("--hard"); ok {
			return destroy(w, "'git reset --hard' throws away uncommitted work for good. Use 'git stash' to set changes aside, or 'git reset --soft' / 'git restore <file>' for a narrower undo.")
		}
	case "clean":
		if _, dry := has("-n", "--dry-run"); dry {
			break
		}
		if w, ok := short('f'); ok {
			return destroy(w, "'git clean -f' deletes untracked files for good. Run 'git clean -n' to see what it would delete, then remove specific files, or ask the user.")
		}
		if w, ok := has("--force"); ok {
			return destroy(w, "'git clean --force' deletes untracked files for good. Run 'git clean -n' to see what it would delete, then remove specific files, or ask the user.")
		}
	case "push":
		force := "A forced push can overwrite other people's commits on the remote. Push to a new branch, or use 'git push --force-with-lease' on a branch only you use, after asking the user."
		if w, ok := has("--force", "--mirror"); ok {
			return destroy(w, force)
		}
		if w, ok := short('f'); ok {
			return destroy(w, force)
		}
		_, i := parseOpts(subArgs, optSpec{short: "o", long: []string{"repo", "receive-pack", "exec", "push-option", "signed"}})
		for j, a := range subArgs[i:] {
			if j > 0 && a.lit && strings.HasPrefix(a.val, "+") {
				return destroy(a, force)
			}
		}
	case "checkout", "restore":
		if sub == "restore" {
			if _, staged := has("--staged", "-S"); staged {
				if _, wt := has("--worktree", "-W"); !wt {
					break
				}
			}
		}
		discard := fmt.Sprintf("'git %s .' discards every uncommitted change in the working tree. Restore specific files by name, or use 'git stash' to keep the changes.", sub)
		if w, ok := has(".", ":/", "./", "*"); ok {
			return destroy(w, discard)
		}
		if w, ok := has("-f", "--force"); ok && sub == "checkout" {
			return destroy(w, discard)
		}
	case "switch":
		if w, ok := has("-f", "--force", "--discard-changes"); ok {
			return destroy(w, "'git switch --discard-changes' throws away uncommitted work. Commit or stash it first.")
		}
	case "stash":
		if w, ok := has("clear"); ok && len(subArgs) > 0 && subArgs[0].val == "clear" {
			return destroy(w, "'git stash clear' deletes every stash for good. Drop specific stashes with 'git stash drop stash@{N}' after checking them with 'git stash list'.")
		}
	case "reflog":
		if w, ok := has("expire", "delete"); ok {
			return destroy(w, "Expiring or deleting reflog entries removes the safety net for recovering lost commits. Ask the user.")
		}
	case "filter-branch", "filter-repo":
		return destroy(cl.words[0], "Rewriting the whole history is irreversible for anyone who has the old commits. Ask the user.")
	}
	return finding{}, false
}

// readOnlySpec describes a command that only reads.
type readOnlySpec struct {
	deny     []string // options that write, run programs or change state
	short    string   // short flags that do
	operands int      // at most this many operands (uniq writes its second); 0: no limit
	check    func(args []word) bool
}

var readOnlyCommands = map[string]readOnlySpec{
	"ls": {}, "dir": {}, "vdir": {}, "cat": {}, "tac": {}, "nl": {}, "head": {}, "tail": {}, "wc": {},
	"cut": {}, "paste": {}, "fold": {}, "expand": {}, "unexpand": {}, "rev": {}, "column": {}, "tr": {},
	"od": {}, "hexdump": {}, "strings": {}, "cmp": {}, "comm": {}, "join": {}, "diff": {}, "md5sum": {},
	"sha1sum": {}, "sha256sum": {}, "sha512sum": {}, "b2sum": {}, "cksum": {}, "base64": {deny: []string{"-o", "--output"}, short: "o"}, "basename": {},
	"dirname": {}, "realpath": {}, "readlink": {}, "pwd": {}, "echo": {}, "printf": {check: printfReadOnly}, "true": {},
	"false": {}, "test": {check: noVarTest}, "[": {check: noVarTest}, ":": {}, "whoami": {}, "id": {}, "groups": {}, "uname": {}, "arch": {},
	"nproc": {}, "uptime": {}, "printenv": {}, "which": {}, "type": {}, "whereis": {}, "stat": {}, "du": {},
	"df": {}, "grep": {}, "egrep": {}, "fgrep": {}, "cd": {}, "pushd": {}, "popd": {}, "dirs": {}, "ps": {},
	"pgrep": {}, "free": {}, "locale": {}, "seq": {}, "sleep": {}, "jq": {}, "tree": {deny: []string{"-o", "-R"}},
	"file": {deny: []string{"-C", "--compile", "-m", "--magic-file"}},
	"sort": {deny: []string{"-o", "--output", "-T", "--temporary-directory", "--compress-program"}, short: "oT"},
	"uniq": {operands: 1},
	"xxd":  {deny: []string{"-r", "-revert"}, operands: 1},
	"rg":   {deny: []string{"--pre", "--pre-glob", "--hostname-bin", "-z", "--search-zip"}, short: "z"},
	"ag":   {deny: []string{"--pager", "-z", "--search-zip"}, short: "z"},
	"find": {deny: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}},
	"yq":   {deny: []string{"-i", "--inplace"}, short: "i"},
	"date": {deny: []string{"-s", "--set"}, check: func(args []word) bool {
		return allOperands(args, func(s string) bool { return strings.HasPrefix(s, "+") })
	}},
	"hostname": {check: func(args []word) bool { return allOperands(args, func(string) bool { return false }) }},
	"env":      {check: func(args []word) bool { return len(args) == 0 }},
	"command":  {check: func(args []word) bool { return len(args) > 0 && (args[0].val == "-v" || args[0].val == "-V") }},
	"alias":    {check: func(args []word) bool { return len(args) == 0 }},
	"export":   {check: safeDeclaration}, "declare": {check: safeDeclaration}, "local": {check: safeDeclaration},
	"typeset": {check: safeDeclaration}, "readonly": {check: safeDeclaration},
	"go":  {check: goReadOnly},
	"sed": {check: sedReadOnly},
	"git": {check: gitReadOnly},
}

// transparent wrappers only run the command after them, which is judged on
// its own.
var transparent = map[string]bool{
	"time": true, "timeout": true, "nice": true, "nohup": true, "stdbuf": true, "builtin": true,
	"ionice": true, "unbuffer": true, "busybox": true, "toybox": true, "xargs": true, "setsid": true,
}

// readOnly returns "" when the command only reads, else why it needs
// approval.
func readOnly(cl *call) string {
	head := cl.words[0]
	name := programName(cl.name())
	if cl.writes {
		return fmt.Sprintf("Command %s writes to a file through a redirection, so it needs the user's approval.", pyRepr(head.val))
	}
	for _, e := range cl.env {
		n, _, _ := strings.Cut(e, "=")
		if !safeVariable(n) {
			return fmt.Sprintf("Command %s runs with %s set, which can change what it does, so it needs the user's approval.", pyRepr(head.val), n)
		}
	}
	args := cl.args()
	if transparent[name] || name == "env" && len(args) > 0 || name == "command" && len(args) > 0 {
		if name == "xargs" && interactive(cl) {
			return "xargs -p asks before each command, so it needs the user's approval."
		}
		if name == "time" {
			if opts, _ := parseOpts(args, timeSpec); hasOpt(opts, "-o", "--output") {
				return "Command 'time' with -o writes its report to a file, so it needs the user's approval."
			}
		}
		return ""
	}
	if shells[name] && shellRunsString(args) {
		// bash -lc '...': each command of the string is judged on its own.
		return ""
	}
	spec, ok := readOnlyCommands[name]
	if !ok {
		return fmt.Sprintf("Command %s is not on the list of read-only commands, so it needs the user's approval.", pyRepr(head.val))
	}
	if reason := secretArg(args, cl.dir); reason != "" {
		return reason
	}
	careful := len(spec.deny) > 0 || spec.short != "" || spec.operands > 0 || spec.check != nil
	if careful && slices.Contains(cl.wrappers, "xargs") {
		return fmt.Sprintf("Command %s gets more arguments from xargs's input, which could turn out to be options, so it needs the user's approval.", pyRepr(head.val))
	}
	if careful {
		// An argument only known at run time could expand to an option.
		options := true
		for _, a := range args {
			if a.lit && a.val == "--" {
				options = false
			}
			if !a.lit && options && (a.prefix == "" || a.prefix[0] == '-') {
				return fmt.Sprintf("Command %s has an argument only known at run time (%s) that could turn out to be an option, so it needs the user's approval.", pyRepr(head.val), a.val)
			}
		}
	}
	operands := 0
	options := true
	for _, a := range args {
		if options && a.lit && a.val == "--" {
			options = false
			continue
		}
		if options && a.lit && len(a.val) > 1 && a.val[0] == '-' {
			opt, _, _ := strings.Cut(a.val, "=")
			if slices.Contains(spec.deny, opt) || deniedAbbreviation(opt, spec.deny) {
				return fmt.Sprintf("Command %s with %s can write files or run programs, so it needs the user's approval.", pyRepr(head.val), opt)
			}
			if spec.short != "" && a.val[1] != '-' && strings.ContainsAny(a.val[1:], spec.short) {
				return fmt.Sprintf("Command %s with %s can write files or run programs, so it needs the user's approval.", pyRepr(head.val), a.val)
			}
			continue
		}
		operands++
	}
	if spec.operands > 0 && operands > spec.operands {
		return fmt.Sprintf("Command %s with %d operands writes its output to the last one, so it needs the user's approval.", pyRepr(head.val), operands)
	}
	if spec.check != nil && !spec.check(args) {
		return fmt.Sprintf("Command %s with these arguments can change files or settings, so it needs the user's approval.", pyRepr(head.val))
	}
	return ""
}

func allOperands(args []word, ok func(string) bool) bool {
	for _, a := range args {
		if !a.lit {
			return false
		}
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		if !ok(a.val) {
			return false
		}
	}
	return true
}

// safeVariable reports whether setting a variable for a read-only command
// leaves it read-only.
func safeVariable(name string) bool {
	switch name {
	case "LANG", "LANGUAGE", "TZ", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "COLUMNS", "LINES", "TERM", "GREP_COLORS", "GREP_COLOR":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}

// sensitiveVariable reports whether assigning a variable changes which
// programs later commands run, or how.
func sensitiveVariable(name string) bool {
	switch name {
	case "PATH", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "HOME", "CDPATH", "PYTHONPATH", "PYTHONSTARTUP",
		"NODE_OPTIONS", "PERL5OPT", "PERL5LIB", "RUBYOPT", "RUBYLIB", "GLOBIGNORE", "PS0", "PS1", "PS2", "PS3", "PS4",
		"BASH_CMDS", "BASH_ALIASES", "BASH_XTRACEFD", "BASH_COMPAT", "PROMPT_COMMAND", "HISTFILE", "INPUTRC", "TMOUT",
		"PYTHONHOME", "NODE_PATH", "PERLLIB", "GCONV_PATH", "LOCPATH", "HOSTALIASES", "EXECIGNORE", "FPATH", "ZDOTDIR":
		return true
	}
	if strings.HasPrefix(name, "BASH_FUNC_") {
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "GIT_") || codeVariables[name]
}

func safeDeclaration(args []word) bool {
	for _, a := range args {
		if !a.lit {
			return false
		}
		name, _, _ := strings.Cut(a.val, "=")
		if i := strings.IndexByte(name, '['); i >= 0 {
			name = name[:i]
		}
		if sensitiveVariable(strings.TrimSuffix(name, "+")) || a.val == "-f" || a.val == "-n" {
			return false
		}
	}
	return true
}

func goReadOnly(args []word) bool {
	if len(args) == 0 || !args[0].lit {
		return false
	}
	switch args[0].val {
	case "version", "doc", "help":
		return true
	case "list":
		// -toolexec and -exec run programs; -export and -compiled build;
		// -mod=mod rewrites go.mod.
		for _, a := range args[1:] {
			if !a.lit {
				return false
			}
			n, v, _ := strings.Cut(strings.TrimPrefix(a.val, "-"), "=")
			n = strings.TrimPrefix(n, "-")
			switch n {
			case "toolexec", "exec", "export", "compiled", "overlay", "pgo", "modfile":
				return false
			case "mod":
				if v != "readonly" && v != "vendor" {
					return false
				}
			}
		}
		return true
	case "env":
		for _, a := range args[1:] {
			if a.val == "-w" || a.val == "-u" {
				return false
			}
		}
		return true
	}
	return false
}

// gitReadOnly reports whether a git command line only reads the repository.
func gitReadOnly(args []word) bool {
	globals, sub, subArgs := gitSplit(args)
	for _, o := range globals {
		if o.name == "-c" && o.hasVal {
			key, _, _ := strings.Cut(o.val.val, "=")
			if gitKeyIn(key, gitHiddenCodeKeys) {
				return false
			}
		}
		if o.name == "--exec-path" && o.hasVal {
			return false
		}
	}
	has := func(names ...string) bool {
		for _, a := range subArgs {
			if !a.lit {
				return false
			}
			n, _, _ := strings.Cut(a.val, "=")
			if slices.Contains(names, n) {
				return true
			}
		}
		return false
	}
	first := ""
	if len(subArgs) > 0 && subArgs[0].lit {
		first = subArgs[0].val
	}
	switch sub {
	case "status", "rev-parse", "ls-files", "ls-tree", "cat-file", "blame", "annotate", "describe", "shortlog",
		"show-ref", "show-branch", "merge-base", "name-rev", "rev-list", "count-objects", "version",
		"check-ignore", "check-attr", "diff-files", "diff-index", "var", "for-each-ref", "cherry":
		return true
	case "log", "show", "diff", "whatchanged", "diff-tree":
		opts, _ := gitSubOpts(sub, subArgs)
		return !hasOpt(opts, "--output", "--ext-diff", "-O", "--open-files-in-pager") && !hasPrefixArg(subArgs, "-O") && allLiteral(subArgs)
	case "grep":
		return !has("-O", "--open-files-in-pager") && !hasPrefixArg(subArgs, "-O")
	case "branch":
		if has("-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-f", "--force", "-u", "--set-upstream-to",
			"--unset-upstream", "--edit-description", "-t", "--track", "--no-track", "--create-reflog") {
			return false
		}
		opts, i := parseOpts(subArgs, optSpec{long: []string{"contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "abbrev", "color", "column"}})
		return i >= len(subArgs) || hasOpt(opts, "-l", "--list")
	case "tag":
		opts, i := parseOpts(subArgs, optSpec{short: "n", long: []string{"contains", "no-contains", "merged", "no-merged", "points-at", "sort", "format", "column"}})
		if hasOpt(opts, "-d", "--delete", "-a", "--annotate", "-s", "--sign", "-u", "-f", "--force", "-m", "-F", "-v", "--verify") {
			return false
		}
		return i >= len(subArgs) || hasOpt(opts, "-l", "--list")
	case "remote":
		return first == "" || first == "-v" || first == "--verbose" || first == "show" || first == "get-url"
	case "stash":
		return first == "list" || first == "show"
	case "reflog":
		return first == "" || first == "show" || strings.HasPrefix(first, "-")
	case "worktree":
		return first == "list"
	case "config":
		return has("--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch") || first == "get" || first == "list"
	}
	return false
}

// varThenSlash reports a word that starts with a parameter expansion
// followed by a slash ($DIR/, "$DIR"/*, "${DIR}/x"): it names a path under
// the root when the variable is empty. ${DIR:?} and ${DIR:-x} are safe.
func varThenSlash(w word) bool {
	if w.lit || w.node == nil {
		return false
	}
	var parts []syntax.WordPart
	for _, p := range w.node.Parts {
		if dq, ok := p.(*syntax.DblQuoted); ok {
			parts = append(parts, dq.Parts...)
			continue
		}
		parts = append(parts, p)
	}
	if len(parts) < 2 {
		return false
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Length {
		return false
	}
	lit, ok := parts[1].(*syntax.Lit)
	return ok && strings.HasPrefix(lit.Value, "/")
}
