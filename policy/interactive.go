package policy

import (
	"slices"
	"strings"
)

// Interactive commands wait for a person at a terminal: full-screen editors,
// pagers and monitors, password prompts, and interpreters started without a
// program. An agent's shell has no terminal, so they hang until the
// timeout. The checks below recognise the common non-interactive forms
// (top -b, python3 script.py, python3 -c ..., git commit -m ...,
// psql -c ..., an interpreter whose standard input is a pipe or a file).

// programName normalises a lower-case base name: python3.12 is python,
// vim.basic is vim.
func programName(name string) string {
	if name == "nodejs" {
		return "node"
	}
	for _, base := range []string{"python", "pypy", "ruby", "perl", "php", "lua", "node", "nvim", "vim"} {
		if rest, ok := strings.CutPrefix(name, base); ok && strings.Trim(rest, "0123456789.") == "" {
			if base == "pypy" {
				return "python"
			}
			return base
		}
	}
	if i := strings.IndexByte(name, '.'); i > 0 { // vim.basic, node.exe
		return name[:i]
	}
	return name
}

// replSpec describes an interpreter: it is interactive unless it is given a
// program (a script operand, or an option such as -c), prints information
// and exits, or reads its program from a pipe or a file.
type replSpec struct {
	spec     optSpec
	run      []string // options that give the program (-c, -e, -m)
	info     []string // options that print something and exit
	force    []string // options that force interactive mode
	script   bool     // the first operand is a program file
	operands int      // with !script: operands needed to run without a prompt (0: operands do not help)
	permute  bool     // options may follow operands (GNU getopt), as in psql DB -c SQL
}

var repls = map[string]replSpec{
	"python":    {spec: optSpec{short: "WXcm", long: []string{"check-hash-based-pycs"}}, run: []string{"-c", "-m"}, info: []string{"-V", "--version", "-h", "--help", "-?"}, force: []string{"-i"}, script: true},
	"ipython":   {run: []string{"-c", "-m"}, info: []string{"--version", "-h", "--help"}, force: []string{"-i"}, script: true},
	"bpython":   {run: []string{"-c"}, info: []string{"--version", "-h", "--help"}, script: true},
	"node":      {spec: optSpec{short: "rCep", long: []string{"require", "import", "loader", "experimental-loader", "conditions", "input-type", "eval", "print", "title", "inspect-port"}}, run: []string{"-e", "--eval", "-p", "--print", "-c", "--check", "--test", "--run"}, info: []string{"-v", "--version", "-h", "--help"}, force: []string{"-i", "--interactive"}, script: true},
	"ruby":      {spec: optSpec{short: "eIrCE"}, run: []string{"-e"}, info: []string{"-v", "--version", "-h", "--help"}, script: true},
	"irb":       {info: []string{"-v", "--version", "-h", "--help"}, script: true},
	"pry":       {info: []string{"-v", "--version", "-h", "--help"}},
	"perl":      {spec: optSpec{short: "eEI"}, run: []string{"-e", "-E"}, info: []string{"-v", "-V", "-h"}, script: true},
	"php":       {spec: optSpec{short: "rfcdBRFEztS"}, run: []string{"-r", "-f", "-S", "-l", "-m", "-i", "-B", "-R", "-F", "-E"}, info: []string{"-v", "--version", "-h", "--help"}, force: []string{"-a"}, script: true},
	"lua":       {spec: optSpec{short: "el"}, run: []string{"-e"}, info: []string{"-v"}, force: []string{"-i"}, script: true},
	"luajit":    {spec: optSpec{short: "elbjO"}, run: []string{"-e", "-b"}, info: []string{"-v"}, force: []string{"-i"}, script: true},
	"julia":     {spec: optSpec{short: "eEpLJCtOg", long: []string{"eval", "print", "project", "threads", "load", "sysimage"}}, run: []string{"-e", "-E", "--eval", "--print"}, info: []string{"-v", "--version", "-h", "--help"}, force: []string{"-i"}, script: true},
	"scala":     {run: []string{"-e"}, info: []string{"-version", "--version"}, script: true},
	"ghci":      {spec: optSpec{short: "e"}, run: []string{"-e"}, info: []string{"--version", "-V"}},
	"jshell":    {info: []string{"--version", "-h", "--help"}, script: true},
	"iex":       {info: []string{"-v", "--version"}},
	"guile":     {spec: optSpec{short: "csL"}, run: []string{"-c", "-s"}, info: []string{"-v", "--version", "-h", "--help"}, script: true},
	"racket":    {spec: optSpec{short: "efrtlS"}, run: []string{"-e", "-f", "-r", "-t", "-l"}, info: []string{"-v", "--version", "-h", "--help"}, force: []string{"-i"}, script: true},
	"ocaml":     {info: []string{"-version", "-vnum"}, script: true},
	"psql":      {spec: optSpec{short: "cdfhLopPRTUvF", long: []string{"command", "dbname", "file", "host", "log-file", "output", "port", "pset", "record-separator", "table-attr", "username", "variable", "set", "field-separator"}}, run: []string{"-c", "--command", "-f", "--file", "-l", "--list"}, info: []string{"-V", "--version", "-?", "--help"}, permute: true},
	"mysql":     {spec: optSpec{short: "eDhPSuB", long: []string{"execute", "database", "host", "port", "socket", "user"}}, run: []string{"-e", "--execute"}, info: []string{"-V", "--version", "-?", "--help"}, permute: true},
	"mariadb":   {spec: optSpec{short: "eDhPSuB", long: []string{"execute", "database", "host", "port", "socket", "user"}}, run: []string{"-e", "--execute"}, info: []string{"-V", "--version", "-?", "--help"}, permute: true},
	"mongo":     {spec: optSpec{long: []string{"eval", "file", "host", "port", "username", "password"}}, run: []string{"--eval", "-f", "--file"}, info: []string{"--version", "-h", "--help"}, script: true, permute: true},
	"mongosh":   {spec: optSpec{long: []string{"eval", "file", "host", "port", "username", "password"}}, run: []string{"--eval", "-f", "--file"}, info: []string{"--version", "-h", "--help"}, script: true, permute: true},
	"redis-cli": {spec: optSpec{short: "hpansurid", long: []string{"user", "pass", "askpass", "tls", "sni", "cacert", "cert", "key"}}, run: []string{"--pipe", "--scan", "--stat", "--bigkeys", "--memkeys", "--latency", "--rdb", "--eval", "-x"}, info: []string{"-v", "--version", "--help"}, operands: 1, permute: true},
	"bc":        {info: []string{"-v", "--version", "-h", "--help"}},
	"telnet":    {info: []string{"--help"}},
	"ftp":       {info: []string{"--help"}},
	"sftp":      {spec: optSpec{short: "bBcDFiloPRsSJ"}, run: []string{"-b"}, permute: true},
	"nslookup":  {operands: 1},
}

// screens are full-screen programs, interactive unless given one of the
// listed options.
var screens = map[string][]string{
	"vi": nil, "vim": nil, "nvim": {"--headless"}, "vimdiff": nil, "rvim": nil, "gvim": nil, "ex": nil,
	"nano": nil, "pico": nil, "joe": nil, "micro": nil, "hx": nil, "helix": nil, "kak": nil, "mcedit": nil, "ne": nil,
	"emacs": {"--batch", "-batch", "--script", "-script"}, "emacsclient": {"-e", "--eval"},
	"less": nil, "more": nil, "most": nil, "pg": nil,
	"man":  {"-k", "-f", "-w", "-W", "--where", "--where-cat", "--path", "--apropos", "--whatis"},
	"info": {"-o", "--output"},
	"top":  {"--batch"}, "htop": nil, "btop": nil, "nmon": nil, "bmon": nil, "nload": nil, "atop": nil,
	"iotop": {"-b", "--batch"}, "iftop": {"-t"}, "nethogs": {"-t"}, "glances": {"--stdout", "--stdout-csv", "--export"},
	"tig": nil, "lazygit": nil, "gitui": nil, "ranger": nil, "nnn": nil, "vifm": nil, "mc": nil, "k9s": nil,
	"cmus": nil, "mutt": nil, "neomutt": nil, "alpine": nil, "vimtutor": nil, "ncdu": {"-o", "-f"},
	"fzf": {"-f", "--filter"}, "dialog": nil, "whiptail": nil, "visudo": {"-c", "--check"}, "vipw": nil, "vigr": nil,
	"sudoedit": nil, "passwd": {"-S", "--status"}, "chsh": {"-l", "--list-shells"}, "chfn": nil, "login": nil, "su": nil,
	"w3m": {"-dump", "-dump_source"}, "lynx": {"-dump", "-source"}, "links": {"-dump", "-source"}, "elinks": {"-dump", "--dump"},
	"watch": nil, "telnet-ssl": nil, "minicom": nil, "screen": {"-d", "-D", "-ls", "-list", "-X", "-Q"},
}

// interactive reports whether the command waits for a terminal.
func interactive(cl *call) bool {
	raw := cl.name()
	name := programName(raw)
	args := cl.args()
	piped := cl.stdinPipe || cl.stdinRedir
	hasRaw := func(names ...string) bool {
		for _, a := range args {
			if a.lit && slices.Contains(names, a.val) {
				return true
			}
		}
		return false
	}
	if raw == "view" || raw == "ssh-keygen" {
		return false
	}
	if exempt, ok := screens[name]; ok {
		if hasRaw("--version", "-V", "--help", "-h") {
			return false
		}
		switch name {
		case "less", "more", "most", "pg", "man", "info":
			// Without a terminal on standard output, they print and exit.
			if cl.stdoutAway {
				return false
			}
		}
		switch name {
		case "vi", "vim", "rvim", "ex", "vimdiff":
			// Ex mode in silent batch form reads commands, not keys.
			silent := hasRaw("-es", "-Es", "-se", "-sE") || hasRaw("-e", "-E") && hasRaw("-s")
			return !silent
		case "top":
			return !hasShortFlag(args, 'b') && !hasRaw("--batch")
		case "screen":
			return !hasShortFlag(args, 'd') && !hasShortFlag(args, 'D') && !hasRaw("-ls", "-list", "-X", "-Q", "-v", "--version")
		}
		return !hasRaw(exempt...)
	}
	if spec, ok := repls[name]; ok {
		return replInteractive(cl, spec, args, piped)
	}
	if shells[name] {
		return shellInteractive(args, piped)
	}
	switch name {
	case "sudo":
		// sudo prompts for a password unless told not to (-n) or to read it
		// from standard input (-S).
		opts, _ := parseOpts(args, sudoSpec)
		if hasOpt(opts, "-e", "--edit") {
			return true
		}
		return len(args) > 0 && !hasOpt(opts, "-n", "--non-interactive", "-S", "--stdin", "-V", "--version", "-h", "--help", "-K", "--remove-timestamp")
	case "doas":
		opts, _ := parseOpts(args, doasSpec)
		return len(args) > 0 && !hasOpt(opts, "-n", "-C", "-L")
	case "ssh":
		opts, i := parseOpts(args, optSpec{short: "BbcDEeFIiJLlmOopQRSWw"})
		if hasOpt(opts, "-V", "-G", "-O", "-N", "-T", "-f", "-Q") {
			return false
		}
		return len(args)-i <= 1 // a host and no command: a login shell
	case "script":
		opts, _ := parseOpts(args, optSpec{short: "cEIOBTm", long: []string{"command"}})
		return !hasOpt(opts, "-c", "--command", "-V", "--version", "-h", "--help") && !piped
	case "chroot":
		_, i := parseOpts(args, optSpec{long: []string{"userspec", "groups"}})
		return len(args)-i == 1 && args[i].lit
	case "xargs":
		opts, _ := parseOpts(args, xargsSpec)
		return hasOpt(opts, "-p", "--interactive", "-o", "--open-tty")
	case "find":
		return hasRaw("-ok", "-okdir")
	case "crontab":
		return hasRaw("-e")
	case "deno":
		return len(args) == 0 || args[0].lit && args[0].val == "repl"
	case "bun", "lein":
		return len(args) > 0 && args[0].lit && args[0].val == "repl"
	case "swift":
		return len(args) == 0 && !piped || len(args) > 0 && args[0].lit && args[0].val == "repl"
	case "sqlite3":
		return sqliteInteractive(args, piped)
	case "kotlinc", "clojure", "clj":
		return len(args) == 0 && !piped
	case "r":
		if displayBase(cl.words[0].val) != "R" { // not the zsh builtin r
			return false
		}
		return !piped && !hasRaw("-e", "-f", "--version", "-h", "--help", "CMD") && !hasPrefixArg(args, "--file=")
	case "gdb", "lldb":
		return !hasRaw("-batch", "--batch", "-b", "--version", "-v", "--help", "-h")
	case "erl":
		return !hasRaw("-noshell", "-noinput", "-detached", "-version")
	case "sbcl":
		return !hasRaw("--script", "--non-interactive", "--version", "--help")
	case "git":
		return gitInteractive(cl, args)
	case "npm", "yarn":
		if len(args) == 0 || !args[0].lit {
			return false
		}
		switch args[0].val {
		case "init":
			return !hasRaw("-y", "--yes")
		case "login", "adduser":
			return true
		}
	case "gh":
		return len(args) > 1 && args[0].val == "auth" && args[1].val == "login" && !hasRaw("--with-token")
	}
	return false
}

func hasShortFlag(args []word, flag byte) bool {
	for _, a := range args {
		if a.lit && len(a.val) > 1 && a.val[0] == '-' && a.val[1] != '-' && strings.IndexByte(a.val[1:], flag) >= 0 {
			return true
		}
	}
	return false
}

func hasPrefixArg(args []word, prefix string) bool {
	for _, a := range args {
		if a.lit && strings.HasPrefix(a.val, prefix) {
			return true
		}
	}
	return false
}

func replInteractive(cl *call, spec replSpec, args []word, piped bool) bool {
	opts, i := parseOpts(args, spec.spec)
	if spec.permute {
		opts, i = permutedOpts(args, spec.spec)
	}
	if hasOpt(opts, spec.force...) {
		return true
	}
	if hasOpt(opts, spec.info...) || hasOpt(opts, spec.run...) {
		return false
	}
	if cl.name() == "mysql" || cl.name() == "mariadb" {
		for _, a := range args {
			if a.lit && (a.val == "-p" || a.val == "--password") {
				return true // prompts for the password
			}
		}
	}
	operands := len(args) - i
	if spec.script && operands > 0 && !(args[i].lit && args[i].val == "-") {
		return false
	}
	if spec.operands > 0 && operands >= spec.operands {
		return false
	}
	return !piped
}

// permutedOpts parses options found anywhere before "--", as GNU getopt
// does, and moves the operands to the end: it returns the options and the
// index where the operands start in the reordered list, which is what
// replInteractive needs (the count of operands).
func permutedOpts(args []word, spec optSpec) ([]opt, int) {
	var all []opt
	operands := 0
	for i := 0; i < len(args); {
		opts, n := parseOpts(args[i:], spec)
		all = append(all, opts...)
		i += n
		if n > 0 && args[i-1].lit && args[i-1].val == "--" {
			operands += len(args) - i
			break
		}
		if i < len(args) {
			operands++
			i++
		}
	}
	return all, len(args) - operands
}

// readsProgram reports whether an interpreter or shell reads the program it
// runs from standard input: no program option, no script file.
func readsProgram(cl *call) bool {
	name := programName(cl.name())
	args := cl.args()
	if shells[name] {
		return !shellHasProgram(args)
	}
	spec, ok := repls[name]
	if !ok || !spec.script {
		return false
	}
	opts, i := parseOpts(args, spec.spec)
	if hasOpt(opts, spec.info...) || hasOpt(opts, spec.run...) {
		return false
	}
	return i >= len(args) || args[i].lit && (args[i].val == "-" || args[i].val == "/dev/stdin")
}

// shellOptions parses the options of sh, bash and the like.
func shellOptions(args []word) (cmdMode, stdinMode, info bool, i int) {
	for i < len(args) {
		a := args[i]
		if !a.lit {
			return
		}
		v := a.val
		if v == "--" || v == "-" {
			i++
			return
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			return
		}
		i++
		if strings.HasPrefix(v, "--") {
			switch {
			case v == "--version" || v == "--help":
				info = true
			case v == "--rcfile" || v == "--init-file":
				i++
			case strings.HasPrefix(v, "--command"):
				cmdMode = true
				if strings.HasPrefix(v, "--command=") {
					i--
					return
				}
			}
			continue
		}
		takes := 0
		for _, ch := range v[1:] {
			switch ch {
			case 'c':
				cmdMode = true
			case 's':
				stdinMode = true
			case 'o', 'O':
				takes++
			}
		}
		i += takes
	}
	return
}

func shellHasProgram(args []word) bool {
	cmdMode, stdinMode, info, i := shellOptions(args)
	if cmdMode || info {
		return true
	}
	return i < len(args) && !stdinMode && !(args[i].lit && (args[i].val == "-" || args[i].val == "/dev/stdin"))
}

func shellInteractive(args []word, piped bool) bool {
	return !shellHasProgram(args) && !piped
}

func sqliteInteractive(args []word, piped bool) bool {
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit || !strings.HasPrefix(a.val, "-") {
			operands++
			continue
		}
		switch strings.TrimPrefix(a.val, "-") {
		case "-version", "version", "-help", "help":
			return false
		case "cmd", "-cmd", "init", "-init", "separator", "-separator", "nullvalue", "-nullvalue", "newline", "-newline":
			i++
		}
	}
	return operands < 2 && !piped
}

// gitInteractive recognises git commands that open an editor or prompt.
func gitInteractive(cl *call, args []word) bool {
	globals, sub, subArgs := gitSplit(args)
	editorSet := func(keys ...string) bool {
		for _, e := range cl.env {
			name, _, _ := strings.Cut(e, "=")
			if slices.Contains(keys, name) {
				return true
			}
		}
		for _, o := range globals {
			if o.name == "-c" && o.hasVal {
				key, _, _ := strings.Cut(strings.ToLower(o.val.val), "=")
				if slices.Contains(keys, key) {
					return true
				}
			}
		}
		return false
	}
	has := func(names ...string) bool {
		for _, a := range subArgs {
			if a.lit && slices.Contains(names, a.val) {
				return true
			}
			if a.lit && strings.HasPrefix(a.val, "--") {
				if n, _, ok := strings.Cut(a.val, "="); ok && slices.Contains(names, n) {
					return true
				}
			}
		}
		return false
	}
	switch sub {
	case "commit", "tag", "merge":
		if editorSet("GIT_EDITOR", "EDITOR", "VISUAL", "core.editor") {
			return false
		}
		opts, _ := gitSubOpts(sub, subArgs)
		if hasOpt(opts, "-p", "--patch", "--interactive") && sub == "commit" {
			return true
		}
		message := hasOpt(opts, "-m", "--message", "-F", "--file", "-C", "--reuse-message", "--no-edit")
		switch sub {
		case "commit":
			if hasOpt(opts, "-e", "--edit", "-c", "--reedit-message") {
				return true
			}
			return !message && !hasOpt(opts, "--fixup", "--dry-run", "--short", "--porcelain", "--long")
		case "tag":
			return hasOpt(opts, "-a", "--annotate", "-s", "--sign", "-u", "--local-user") && !message
		case "merge":
			return hasOpt(opts, "-e", "--edit")
		}
	case "rebase":
		return has("-i", "--interactive") && !editorSet("GIT_SEQUENCE_EDITOR", "sequence.editor", "GIT_EDITOR", "core.editor", "VISUAL", "EDITOR")
	case "add", "checkout", "restore", "reset", "stash":
		return has("-p", "--patch", "-i", "--interactive", "-e", "--edit") && !(sub != "add" && has("-e", "--edit"))
	case "clean":
		return has("-i", "--interactive") || hasShortFlag(subArgs, 'i')
	case "mergetool":
		return true
	case "difftool":
		return !has("-y", "--no-prompt", "-x", "--extcmd")
	case "send-email":
		return !has("--confirm=never")
	}
	return false
}

// interactive reports whether the command waits for a terminal, knowing
// the environment the commands run in (Rules.Environment): with an editor
// that exits at once (GIT_EDITOR=true, as shellcap's Shell sets it), the
// commands that would only open an editor do not wait.
func (c *checker) interactive(cl *call) bool {
	if c.p.editorSet && editorOnly(cl) {
		return false
	}
	return interactive(cl)
}

// editorOnly reports commands whose only reason to wait is the editor they
// open: git commit, tag, merge and rebase -i, git add -e, crontab -e.
func editorOnly(cl *call) bool {
	switch programName(cl.name()) {
	case "git":
		_, sub, subArgs := gitSplit(cl.args())
		switch sub {
		case "commit", "tag", "merge", "rebase":
			opts, _ := gitSubOpts(sub, subArgs)
			return !hasOpt(opts, "-p", "--patch", "--interactive") || sub == "rebase"
		case "add":
			opts, _ := gitSubOpts(sub, subArgs)
			return hasOpt(opts, "-e", "--edit") && !hasOpt(opts, "-p", "--patch", "-i", "--interactive")
		}
	case "crontab":
		return true
	}
	return false
}

// quietEditor reports whether an environment's editor exits without
// waiting: git uses GIT_EDITOR, else VISUAL, else EDITOR.
func quietEditor(env map[string]string) bool {
	v := env["GIT_EDITOR"]
	if v == "" {
		v = env["VISUAL"]
	}
	if v == "" {
		v = env["EDITOR"]
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return false
	}
	switch baseName(f[0]) {
	case "true", ":", "cat", "false":
		return true
	}
	return false
}
