package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// wrapperSpec describes a program that runs another program: how to find
// the command it runs among its arguments, and which of its options run code
// of their own. The table below is the single place that knows wrappers'
// command lines; unwrap walks it.
type wrapperSpec struct {
	spec     optSpec
	operands int            // operands before the command (timeout's duration, gosu's user)
	first    bool           // the operands come before the options (setarch ARCH -R cmd)
	stop     []string       // options that mean no command is run
	code     []string       // options whose value is shell code (nodemon --exec)
	program  []string       // options whose value names a program it runs (dbus-run-session --dbus-daemon)
	sub      string         // the subcommand that makes it a wrapper (pyenv exec, pixi run)
	assigns  bool           // NAME=value words come before the command (cross-env)
	joined   bool           // the command words are joined and run by a shell (watchexec, pixi run)
	each     bool           // each operand is a shell command of its own (hyperfine, concurrently, pee)
	optional *regexp.Regexp // an optional operand that comes first (nvm exec 20 node, chrt 10 cmd)
}

var (
	timeSpec    = optSpec{short: "fo", long: []string{"format", "output"}, flags: []string{"append", "portability", "verbose", "quiet", "help", "version"}}
	timeoutSpec = optSpec{short: "sk", long: []string{"signal", "kill-after"}, flags: []string{"preserve-status", "foreground", "verbose", "help", "version"}}
)

var wrapperSpecs = map[string]wrapperSpec{
	"nice":        {spec: optSpec{short: "n", long: []string{"adjustment"}, flags: []string{"help", "version"}}},
	"nohup":       {spec: optSpec{flags: []string{"help", "version"}}},
	"time":        {spec: timeSpec},
	"timeout":     {spec: timeoutSpec, operands: 1},
	"stdbuf":      {spec: optSpec{short: "ioe", long: []string{"input", "output", "error"}}},
	"ionice":      {spec: optSpec{short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}, flags: []string{"ignore", "help", "version"}}, stop: []string{"-p", "-P", "-u", "--pid", "--pgid", "--uid"}},
	"setsid":      {spec: optSpec{flags: []string{"ctty", "fork", "wait", "help", "version"}}},
	"command":     {stop: []string{"-v", "-V"}},
	"builtin":     {},
	"exec":        {spec: optSpec{short: "a"}},
	"unbuffer":    {},
	"chroot":      {spec: optSpec{long: []string{"userspec", "groups"}, flags: []string{"skip-chdir", "help", "version"}}, operands: 1},
	"taskset":     {spec: optSpec{flags: []string{"all-tasks", "pid", "cpu-list", "help", "version"}}, stop: []string{"-p", "--pid"}, operands: 1},
	"chrt":        {spec: optSpec{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}, flags: []string{"all-tasks", "batch", "deadline", "fifo", "idle", "other", "rr", "reset-on-fork", "max", "pid", "verbose", "help", "version"}}, stop: []string{"-p", "--pid", "-m", "--max"}, optional: digits},
	"strace":      {spec: optSpec{short: "abeEIoOpPsSuUX", long: []string{"trace", "signal", "output", "attach", "user", "env", "status", "trace-path", "inject", "fault", "decode-fds", "quiet", "silence", "kvm", "columns", "string-limit", "summary-columns", "summary-sort-by", "argv0"}}},
	"ltrace":      {spec: optSpec{short: "aAeDFlnopsuwx", long: []string{"output", "library", "align", "indent"}}},
	"unshare":     {spec: optSpec{short: "SGRw", long: []string{"setuid", "setgid", "root", "wd", "propagation", "setgroups", "map-user", "map-group", "map-users", "map-groups", "kill-child", "monotonic", "boottime"}, flags: []string{"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "fork", "map-root-user", "map-current-user", "map-auto", "mount-proc", "keep-caps"}}},
	"nsenter":     {spec: optSpec{short: "tSG", long: []string{"target", "setuid", "setgid", "root", "wd", "wdns"}, flags: []string{"all", "mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "preserve-credentials", "no-fork", "follow-context"}}},
	"catchsegv":   {},
	"caffeinate":  {spec: optSpec{short: "tw"}},
	"systemd-run": {spec: optSpec{short: "pEMu", long: []string{"unit", "property", "description", "slice", "setenv", "uid", "gid", "working-directory", "machine", "host", "on-calendar", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "on-clock-change", "on-timezone-change", "path-property", "socket-property", "timer-property", "nice", "service-type", "expand-environment"}, flags: []string{"user", "system", "scope", "remain-after-exit", "send-sighup", "pty", "pipe", "quiet", "wait", "collect", "same-dir", "shell", "no-block", "no-ask-password"}}},
	// Tools that run a command as another user, in a namespace or under a
	// supervisor.
	"pkexec":           {spec: optSpec{long: []string{"user"}, flags: []string{"keep-cwd", "disable-internal-agent", "help", "version"}}, stop: []string{"--help", "--version"}},
	"run0":             {spec: optSpec{short: "ugD", long: []string{"user", "group", "nice", "chdir", "setenv", "property", "description", "slice", "unit", "machine", "background", "shell-prompt-prefix", "pty-late"}, flags: []string{"slice-inherit", "pty", "pipe", "no-ask-password", "via-shell", "help", "version"}}},
	"fakeroot":         {spec: optSpec{short: "lsib", long: []string{"lib", "faked"}, flags: []string{"unknown-is-real", "help", "version"}}, program: []string{"--faked"}},
	"eatmydata":        {},
	"numactl":          {spec: optSpec{short: "NmipCPwDSHb", long: []string{"interleave", "cpunodebind", "membind", "physcpubind", "preferred", "preferred-many", "weighted-interleave", "offset", "length", "mode", "policy", "shm", "file", "shmid", "huge"}, flags: []string{"localalloc", "all", "balancing", "show", "hardware", "touch", "dump", "dump-nodes", "strict", "help", "version"}}, stop: []string{"-s", "--show", "-H", "--hardware"}},
	"prlimit":          {spec: optSpec{short: "po", long: []string{"pid", "output"}, flags: []string{"as", "core", "cpu", "data", "fsize", "locks", "memlock", "msgqueue", "nice", "nofile", "nproc", "rss", "rtprio", "rttime", "sigpending", "stack", "noheadings", "raw", "verbose", "help", "version"}}, stop: []string{"-p", "--pid"}},
	"setpriv":          {spec: optSpec{long: []string{"reuid", "regid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access", "landlock-rule", "ruid", "euid", "rgid", "egid"}, flags: []string{"clear-groups", "keep-groups", "init-groups", "nnp", "no-new-privs", "reset-env", "dump", "help", "version"}}, stop: []string{"-d", "--dump"}},
	"ssh-agent":        {spec: optSpec{short: "aEPtO"}, stop: []string{"-k", "-l"}},
	"dbus-run-session": {spec: optSpec{long: []string{"config-file", "dbus-daemon"}, flags: []string{"help", "version"}}, program: []string{"--dbus-daemon"}},
	"dbus-launch":      {spec: optSpec{long: []string{"config-file"}, flags: []string{"sh-syntax", "csh-syntax", "auto-syntax", "binary-syntax", "close-stderr", "exit-with-session", "exit-with-x11", "autolaunch", "help", "version"}}},
	"xvfb-run":         {spec: optSpec{short: "nsefpw", long: []string{"server-num", "server-args", "error-file", "auth-file", "xauth-protocol", "wait"}, flags: []string{"auto-servernum", "auto-display", "listen-tcp", "help"}}},
	"firejail":         {spec: optSpec{flags: []string{"noprofile", "quiet", "private", "net", "debug"}}},
	"gosu":             {operands: 1},
	"su-exec":          {operands: 1},
	"tini":             {spec: optSpec{short: "pe"}, stop: []string{"--version", "-h"}},
	"dumb-init":        {spec: optSpec{short: "r", long: []string{"rewrite"}, flags: []string{"single-child", "verbose", "version", "help"}}},
	"ifne":             {},
	"chronic":          {},
	"valgrind":         {spec: optSpec{flags: []string{"help", "version", "verbose", "quiet"}}, code: []string{"--db-command"}, stop: []string{"--help", "--version", "-h"}},
	"setarch":          {spec: optSpec{flags: []string{"addr-no-randomize", "fdpic-funcptrs", "mmap-page-zero", "addr-compat-layout", "read-implies-exec", "32bit", "short-inode", "whole-seconds", "sticky-timeouts", "3gb", "4gb", "uname-2.6", "verbose", "list", "help", "version"}}, operands: 1, first: true, stop: []string{"--list"}},
	"linux32":          {},
	"linux64":          {},
	"cross-env":        {assigns: true},
	"cross-env-shell":  {assigns: true, joined: true},
	"grc":              {spec: optSpec{short: "c", long: []string{"config", "colour"}, flags: []string{"stderr", "stdout", "pty"}}},
	"ccache":           {stop: []string{"-s", "-C", "-c", "-z", "-M", "-F", "-p", "-V", "-h", "--show-stats", "--clear", "--cleanup", "--zero-stats", "--version", "--help"}},
	"distcc":           {},
	"proxychains":      {spec: optSpec{short: "f"}},
	"proxychains4":     {spec: optSpec{short: "f"}},
	"torsocks":         {spec: optSpec{short: "uapP", long: []string{"user", "pass", "address", "port"}, flags: []string{"isolate", "shell", "quiet", "help", "version"}}},
	"sem":              {spec: optSpec{short: "j", long: []string{"jobs", "id", "semaphorename", "timeout"}, flags: []string{"wait", "fg", "bg"}}, joined: true},
	"flatpak-spawn":    {spec: optSpec{long: []string{"env", "forward-fd", "directory"}, flags: []string{"host", "watch-bus", "clear-env", "sandbox", "latest-version", "no-network"}}},
	// Tools that run a command, or several, through a shell.
	"hyperfine":    {spec: optSpec{short: "wrmMpcsSPDLnu", long: []string{"warmup", "runs", "min-runs", "max-runs", "prepare", "conclude", "cleanup", "setup", "shell", "parameter-scan", "parameter-step-size", "parameter-list", "command-name", "time-unit", "style", "sort", "export-asciidoc", "export-csv", "export-json", "export-markdown", "export-orgmode", "output", "input", "reference", "min-benchmarking-time"}, flags: []string{"ignore-failure", "show-output", "help", "version", "no-shell"}, arity: map[string]int{"parameter-scan": 3, "parameter-list": 2}}, code: []string{"-p", "--prepare", "-c", "--cleanup", "-s", "--setup", "--conclude", "--reference"}, program: []string{"-S", "--shell"}, each: true},
	"watchexec":    {spec: optSpec{short: "wWFefisdEo", long: []string{"watch", "watch-non-recursive", "watch-file", "exts", "filter", "filter-file", "filter-prog", "ignore", "ignore-file", "signal", "stop-signal", "stop-timeout", "debounce", "delay-run", "env", "workdir", "shell", "project-origin", "on-busy-update", "poll", "emit-events-to", "fs-events", "timeout", "wrap-process", "color", "log-file", "socket", "screen-clear", "map-signal"}, flags: []string{"restart", "clear", "postpone", "no-vcs-ignore", "no-project-ignore", "no-global-ignore", "no-default-ignore", "no-discover-ignore", "ignore-nothing", "no-meta", "notify", "quiet", "bell", "only-emit-events", "no-environment", "no-process-group", "print-events", "manual", "verbose", "help", "version"}}, program: []string{"--shell"}, joined: true},
	"nodemon":      {spec: optSpec{short: "wxeidV", long: []string{"watch", "exec", "ext", "ignore", "delay", "signal", "config", "cwd", "on-change-only"}, flags: []string{"legacy-watch", "polling-interval", "no-stdin", "quiet", "verbose", "dump", "help", "version", "spawn", "no-colors"}}, code: []string{"-x", "--exec"}},
	"concurrently": {spec: optSpec{short: "ncpltsm", long: []string{"names", "name-separator", "prefix", "prefix-colors", "prefix-length", "timestamp-format", "success", "restart-tries", "restart-after", "max-processes", "default-input-target", "teardown", "pad-prefix", "cwd"}, flags: []string{"kill-others", "kill-others-on-fail", "raw", "no-color", "hide", "group", "handle-input", "passthrough-arguments", "timings", "help", "version"}}, code: []string{"--teardown"}, each: true},
	"pee":          {spec: optSpec{flags: []string{"ignore-sigpipe", "no-ignore-sigpipe", "ignore-write-errors", "no-ignore-write-errors"}}, each: true},
	// Version managers and environment runners: "tool exec CMD".
	"pyenv":  {sub: "exec"},
	"rbenv":  {sub: "exec"},
	"nodenv": {sub: "exec"},
	"goenv":  {sub: "exec"},
	"jenv":   {sub: "exec"},
	"plenv":  {sub: "exec"},
	"phpenv": {sub: "exec"},
	"asdf":   {sub: "exec"},
	"rtx":    {sub: "exec"},
	"nvm":    {sub: "exec", spec: optSpec{flags: []string{"silent", "lts"}}, optional: versionOperand},
	"pixi":   {sub: "run", spec: optSpec{short: "e", long: []string{"manifest-path", "environment", "color", "frozen", "locked"}, flags: []string{"clean-env", "force-activate", "no-lockfile-update", "no-install", "verbose", "quiet"}}, joined: true},
	"volta":  {sub: "run", spec: optSpec{long: []string{"node", "npm", "pnpm", "yarn", "env"}, flags: []string{"bundled-npm", "no-yarn", "no-pnpm", "verbose", "quiet"}}},
	"fnm":    {sub: "exec", spec: optSpec{long: []string{"using"}}},
}

// gnuPrefixed are GNU tools that macOS installs with a "g" prefix (gtimeout,
// gxargs, gfind, genv, grm): each is the tool without the prefix.
var gnuPrefixed = map[string]bool{
	"timeout": true, "xargs": true, "find": true, "env": true, "nice": true, "nohup": true, "stdbuf": true,
	"chroot": true, "rm": true, "rmdir": true, "dd": true, "shred": true, "unlink": true, "sed": true, "tar": true,
	"sort": true, "date": true, "base64": true, "stat": true, "readlink": true, "realpath": true, "cat": true,
	"ls": true, "head": true, "tail": true, "du": true, "df": true, "cp": true, "mv": true, "ln": true, "install": true,
	"chmod": true, "chown": true, "tee": true, "touch": true, "truncate": true, "split": true, "mktemp": true,
	"time": true, "awk": true, "make": true, "wc": true, "cut": true, "tr": true, "uniq": true, "od": true,
}

// identity returns the program a lower-case base name stands for: gtimeout
// is timeout.
func identity(name string) string {
	if len(name) > 2 && name[0] == 'g' && gnuPrefixed[name[1:]] {
		return name[1:]
	}
	return name
}

// nonPOSIXShells run a language other than the POSIX shell's, which the
// policy does not parse: code they run from a string or standard input is
// asked about.
var nonPOSIXShells = map[string]bool{
	"nu": true, "pwsh": true, "powershell": true, "xonsh": true, "elvish": true, "ion": true, "murex": true, "ysh": true,
	"oil": true, "rc": true, "es": true, "nush": true,
}

// versionOperand matches the optional version of nvm exec and friends.
var (
	versionOperand = regexp.MustCompile(`^(v?[0-9][0-9.]*|lts/.*|node|stable|system|default|latest|iojs)$`)
	digits         = regexp.MustCompile(`^[0-9]+$`)
)

// tableWrapper runs the wrapperSpec of a program: it checks the code and
// programs its options run, and returns the command it runs.
func (c *checker) tableWrapper(cl *call, name string, w wrapperSpec, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	label := name
	if w.sub != "" {
		if len(args) == 0 || !args[0].lit || args[0].val != w.sub {
			return call{}, false
		}
		args = args[1:]
		label = name + " " + w.sub
	}
	skip := 0
	if w.first {
		skip = min(w.operands, len(args))
		args = args[skip:]
	}
	opts, i := parseOpts(args, w.spec)
	if hasOpt(opts, w.stop...) {
		return call{}, false
	}
	for _, o := range opts {
		switch {
		case !o.hasVal:
		case o.is(w.code...):
			c.code(cl, o.val, label+" "+o.name)
		case o.is(w.program...):
			if n, ok := inner([]word{o.val}, label+" "+o.name); ok {
				c.runCall(n)
			}
		}
	}
	if !w.first {
		i += w.operands
	}
	if w.optional != nil && i < len(args) && args[i].lit && w.optional.MatchString(args[i].val) {
		i++
	}
	// A "--" after the operands ends options, unless the option parser
	// already took one: then this one is the program ("nohup -- --").
	if i < len(args) && args[i].lit && args[i].val == "--" && (i == 0 || args[i-1].val != "--") {
		i++
	}
	if w.assigns {
		for i < len(args) && args[i].lit && isAssignment(args[i].val) {
			c.envAssignment(args[i])
			i++
		}
	}
	if i >= len(args) {
		c.missingCommand(cl, label)
		return call{}, false
	}
	switch {
	case w.each:
		for _, a := range args[i:] {
			c.code(cl, a, label)
		}
		return call{}, false
	case w.joined:
		c.joinedCode(cl, args[i:], label)
		return call{}, false
	}
	return inner(args[i:], label)
}

// capsh runs /bin/bash (or --shell=PROG) with the arguments after "--".
func (c *checker) capsh(cl *call, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	shell := word{val: "bash", prefix: "bash", lit: true, off: cl.words[0].off}
	for i, a := range args {
		if !a.lit {
			c.runtime("capsh has an option only known at run time", a.val, a.off)
			return call{}, false
		}
		if v, ok := strings.CutPrefix(a.val, "--shell="); ok {
			shell = attached(a, v)
		}
		if a.val == "--" || a.val == "==" {
			if a.val == "==" {
				return inner(append([]word{cl.words[0]}, args[i+1:]...), "capsh ==")
			}
			return inner(append([]word{shell}, args[i+1:]...), "capsh --")
		}
	}
	return call{}, false
}

// sg runs its command through /bin/sh -c: "sg GROUP -c CMD" or
// "sg GROUP CMD".
func (c *checker) sg(cl *call, args []word) {
	if len(args) > 0 && args[0].lit && args[0].val == "-" {
		args = args[1:]
	}
	if len(args) < 2 {
		return
	}
	rest := args[1:]
	if rest[0].lit && rest[0].val == "-c" {
		rest = rest[1:]
	}
	c.joinedCode(cl, rest, "sg -c")
}

// ipExec handles "ip [OPTIONS] netns exec NAME CMD" and "ip vrf exec NAME
// CMD"; ip accepts abbreviated object and command names.
func (c *checker) ipExec(args []word, inner func([]word, string) (call, bool)) (call, bool) {
	i := 0
	all := false
	for i < len(args) && args[i].lit && strings.HasPrefix(args[i].val, "-") {
		switch strings.TrimLeft(args[i].val, "-") {
		case "n", "netns", "b", "batch", "rc", "rcvbuf", "l", "loops", "f", "family":
			i++
		case "a", "all":
			all = true
		}
		i++
	}
	if i+1 >= len(args) || !args[i].lit || !args[i+1].lit {
		return call{}, false
	}
	obj, cmd := args[i].val, args[i+1].val
	if !(len(obj) >= 4 && strings.HasPrefix("netns", obj) || obj == "vrf") || !strings.HasPrefix("exec", cmd) || cmd == "" {
		return call{}, false
	}
	i += 2
	if !(all && obj != "vrf") {
		i++ // the namespace or VRF name
	}
	if i > len(args) {
		return call{}, false
	}
	return inner(args[i:], "ip "+obj+" exec")
}

// arch runs a command under another architecture on macOS: "arch -x86_64
// CMD"; its options are whole words.
func (c *checker) arch(args []word, inner func([]word, string) (call, bool)) (call, bool) {
	i := 0
	for i < len(args) && args[i].lit && strings.HasPrefix(args[i].val, "-") {
		if args[i].val == "-e" || args[i].val == "-d" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return call{}, false
	}
	return inner(args[i:], "arch")
}

// perf record, stat, trace and the like run a command.
func (c *checker) perf(args []word, inner func([]word, string) (call, bool)) (call, bool) {
	if len(args) == 0 || !args[0].lit {
		return call{}, false
	}
	switch args[0].val {
	case "record", "stat", "trace", "ftrace", "mem", "c2c", "lock", "sched", "kmem", "kvm", "timechart", "inject", "probe", "daemon", "test", "bench", "script":
	default:
		return call{}, false
	}
	rest := args[1:]
	for i, a := range rest {
		if a.lit && a.val == "--" {
			return inner(rest[i+1:], "perf "+args[0].val)
		}
	}
	if args[0].val == "script" {
		return call{}, false
	}
	_, i := parseOpts(rest, optSpec{short: "eptoCFGcmuIjrDdxLMNSTn", long: []string{"event", "pid", "tid", "output", "cpu", "freq", "cgroup", "count", "mmap-pages", "uid", "call-graph", "filter", "repeat", "delay", "field-separator", "post", "pre", "control", "max-size", "switch-output", "clockid", "affinity", "aio", "user-regs", "intr-regs", "metric-only", "metrics", "topdown", "td-level", "iostat", "interval-print", "interval-count", "timeout"}})
	if i >= len(rest) {
		return call{}, false
	}
	return inner(rest[i:], "perf "+args[0].val)
}

// nixShell handles "nix shell PKGS -c CMD" and "nix develop -c CMD".
func (c *checker) nixShell(args []word, inner func([]word, string) (call, bool)) (call, bool) {
	if len(args) == 0 || !args[0].lit || (args[0].val != "shell" && args[0].val != "develop") {
		return call{}, false
	}
	for i, w := range args {
		if w.lit && (w.val == "-c" || w.val == "--command") {
			return inner(args[i+1:], "nix "+args[0].val)
		}
	}
	return call{}, false
}

// sops exec-env FILE CMD and exec-file FILE CMD run CMD through a shell.
func (c *checker) sops(cl *call, args []word) {
	if len(args) == 0 || !args[0].lit || (args[0].val != "exec-env" && args[0].val != "exec-file") {
		return
	}
	_, operands := permutedOptions(args[1:], optSpec{long: []string{"user", "filename", "input-type", "output-type", "config"}, flags: []string{"background", "no-fifo", "pristine", "same-process"}})
	if len(operands) >= 2 {
		c.joinedCode(cl, operands[1:], "sops "+args[0].val)
	}
}

// dotenvx run [options] -- CMD.
func dotenvx(args []word) ([]word, bool) {
	if len(args) == 0 || !args[0].lit || args[0].val != "run" {
		return nil, false
	}
	rest := args[1:]
	for i, w := range rest {
		if w.lit && w.val == "--" {
			return rest[i+1:], true
		}
	}
	_, i := parseOpts(rest, optSpec{short: "fe", long: []string{"env-file", "env", "env-keys-file", "convention", "ops-off"}, flags: []string{"overload", "strict", "quiet", "verbose", "debug"}})
	return rest[i:], i < len(rest)
}

// bwrap takes options with one, two or three values, then the command.
var bwrapSpec = optSpec{
	long: []string{"args", "argv0", "userns", "userns2", "pidns", "uid", "gid", "hostname", "chdir", "unsetenv", "lock-file", "sync-fd", "remount-ro", "exec-label", "file-label", "proc", "dev", "tmpfs", "mqueue", "dir", "seccomp", "add-seccomp-fd", "block-fd", "userns-block-fd", "info-fd", "json-status-fd", "cap-add", "cap-drop", "perms", "size", "overlay-src", "tmp-overlay", "ro-overlay",
		"setenv", "bind", "bind-try", "dev-bind", "dev-bind-try", "ro-bind", "ro-bind-try", "file", "bind-data", "ro-bind-data", "symlink", "chmod", "bind-fd", "ro-bind-fd", "overlay"},
	flags: []string{"help", "version", "level-prefix", "unshare-all", "share-net", "unshare-user", "unshare-user-try", "unshare-ipc", "unshare-pid", "unshare-net", "unshare-uts", "unshare-cgroup", "unshare-cgroup-try", "disable-userns", "assert-userns-disabled", "clearenv", "new-session", "die-with-parent", "as-pid-1"},
	arity: map[string]int{"setenv": 2, "bind": 2, "bind-try": 2, "dev-bind": 2, "dev-bind-try": 2, "ro-bind": 2, "ro-bind-try": 2, "file": 2, "bind-data": 2, "ro-bind-data": 2, "symlink": 2, "chmod": 2, "bind-fd": 2, "ro-bind-fd": 2, "overlay": 3},
}

// knownNonWrappers are programs whose arguments are data, not a command,
// or programs with subcommands whose names may match a denied program
// ("docker rm", "npm rm", "aws s3 rm"). Any other program whose argument
// names a denied program followed by arguments may be a wrapper the policy
// does not know, and is asked about.
var knownNonWrappers = map[string]bool{
	"echo": true, "printf": true, "man": true, "info": true, "help": true, "apropos": true, "whatis": true, "whereis": true,
	"which": true, "type": true, "command": true, "hash": true, "grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true,
	"ack": true, "git": true, "tldr": true, "cheat": true, "complete": true, "compgen": true, "alias": true, "unalias": true,
	"docker": true, "podman": true, "nerdctl": true, "buildah": true, "crictl": true, "ctr": true, "kubectl": true, "oc": true,
	"helm": true, "minikube": true, "kind": true, "k3d": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
	"cargo": true, "rustup": true, "go": true, "pip": true, "pip3": true, "pipx": true, "uv": true, "poetry": true, "conda": true,
	"mamba": true, "micromamba": true, "brew": true, "apt": true, "apt-get": true, "dpkg": true, "dnf": true, "yum": true,
	"apk": true, "pacman": true, "zypper": true, "snap": true, "flatpak": true, "nix-env": true, "gem": true, "composer": true,
	"aws": true, "gcloud": true, "gsutil": true, "az": true, "gh": true, "glab": true, "terraform": true, "tofu": true,
	"pulumi": true, "vagrant": true, "rclone": true, "mc": true, "s3cmd": true, "b2": true, "ruff": true, "black": true,
	"dotnet": true, "mvn": true, "gradle": true, "ant": true, "bazel": true, "buck": true, "make": true, "gmake": true,
	"cmake": true, "ninja": true, "meson": true, "just": true, "task": true, "hg": true, "svn": true, "fossil": true,
	"jj": true, "git-lfs": true, "dvc": true, "ollama": true, "systemctl": true, "journalctl": true, "loginctl": true,
	"service": true, "telinit": true, "lxc": true, "incus": true, "virsh": true, "restic": true, "borg": true, "sed": true,
	"awk": true, "gawk": true, "jq": true, "yq": true, "cat": true, "less": true, "more": true, "head": true, "tail": true,
	"wc": true, "sort": true, "uniq": true, "cut": true, "tr": true, "ls": true, "stat": true, "file": true, "diff": true,
	"tar": true, "zip": true, "unzip": true, "gzip": true, "curl": true, "wget": true, "test": true, "[": true, "[[": true,
	"history": true, "fc": true, "read": true, "set": true, "unset": true, "export": true, "declare": true, "local": true,
	"typeset": true, "readonly": true, "let": true, "shift": true, "return": true, "exit": true, "cd": true, "pushd": true,
	"ls-files": true, "mise": true, "pre-commit": true, "tox": true, "nox": true, "pytest": true, "jest": true,
	"vitest": true, "mocha": true, "eslint": true, "prettier": true, "tsc": true, "rsync": true, "scp": true, "cp": true,
	"mv": true, "ln": true, "mkdir": true, "touch": true, "chmod": true, "chown": true, "notify-send": true, "logger": true,
	"say": true, "figlet": true, "cowsay": true, "trash": true, "gio": true, "kill": true, "pkill": true, "pgrep": true,
	"ps": true, "top": true, "htop": true, "killall": true, "bats": true, "shellcheck": true, "shfmt": true, "ssh": true, "mosh": true, "lsof": true, "fuser": true, "stty": true, "tput": true, "xdg-open": true,
	"open": true, "code": true, "cursor": true, "subl": true, "idea": true, "emacsclient": true,
}

// unknownWrapper asks about an argument of an unknown program that names a
// denied program and is followed by arguments: "newtool rm -rf /" may run
// rm the way sudo or nice do.
func (c *checker) unknownWrapper(cl *call, name string) {
	p := c.p
	if p.denied == nil || knownNonWrappers[name] || knownNonWrappers[identity(name)] || isKnownProgram(name) {
		return
	}
	args := cl.args()
	for i, a := range args {
		if !a.lit || i == len(args)-1 || strings.ContainsAny(a.val, " \t\n=") {
			continue
		}
		base := identity(baseName(a.val))
		if !p.isDenied(base) || strings.Contains(base, ".") && !strings.HasPrefix(base, "mkfs.") {
			continue // "rm.log" is a file name; mkfs.ext4 is the program
		}
		if i == 0 && (base == "init" || base == "format" || base == "halt" || base == "reboot" || base == "poweroff") {
			continue // "terraform init -upgrade", "ruff format src": a subcommand
		}
		c.add(Ask, ruleWrapper, fmt.Sprintf("%s is not a program the policy knows, and its argument %s names the denied program %s followed by arguments, so it may run it. Run the command without %s, or ask the user.", pyRepr(cl.words[0].val), pyRepr(a.val), pyRepr(base), pyRepr(cl.words[0].val)), a.written(), a.off)
		return
	}
}

// isKnownProgram reports programs the policy models elsewhere, whose
// arguments are not a command unless a rule says so.
func isKnownProgram(name string) bool {
	pn := programName(name)
	if _, ok := readOnlyCommands[pn]; ok {
		return true
	}
	if _, ok := screens[pn]; ok {
		return true
	}
	if _, ok := repls[pn]; ok {
		return true
	}
	return shells[pn] || nonPOSIXShells[pn] || slices.Contains([]string{"perl", "python", "ruby", "node", "php", "lua"}, pn)
}

// shells run -c strings and scripts; their -c string is checked as code.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"yash": true, "posh": true, "fish": true, "csh": true, "tcsh": true, "rbash": true, "ksh93": true,
	"oksh": true, "osh": true, "loksh": true, "pdksh": true, "bosh": true, "hush": true, "lksh": true,
}

// foreignShell handles shells whose language the policy does not parse
// (nu, pwsh, xonsh, elvish): code from a string or from standard input is
// asked about; a script file is left alone like any other.
func (c *checker) foreignShell(cl *call, name string, args []word) {
	head := cl.words[0]
	for _, a := range args {
		if !a.lit {
			c.runtime(fmt.Sprintf("%s has an argument only known at run time (%s)", name, short(a.val)), a.val, a.off)
			return
		}
		switch strings.ToLower(a.val) {
		case "--version", "-v", "-version", "--help", "-h", "-help":
			return
		case "-c", "--commands", "--command", "-command", "-encodedcommand", "-ec", "-e", "-enc", "--execute", "-i", "--interactive", "-", "-commandwithargs", "-cwa":
			c.dynamic(fmt.Sprintf("%s runs code in a language the policy does not analyse, so it cannot check what it does. Run the commands directly in the shell, or ask the user.", pyRepr(head.val)), a.written(), a.off)
			return
		}
		if !strings.HasPrefix(a.val, "-") {
			return // a script file
		}
	}
	if cl.stdinPipe || cl.stdinRedir {
		c.dynamic(fmt.Sprintf("%s would run a program read from its standard input, in a language the policy does not analyse. Run the commands directly, or ask the user.", pyRepr(head.val)), head.written(), head.off)
	}
}

var suSpec = optSpec{
	short: "cgGswCu",
	long:  []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user", "pty"},
	flags: []string{"login", "preserve-environment", "fast", "help", "version"},
}

// su and runuser parse their options anywhere: "runuser -u USER -- CMD",
// "runuser USER -c CMD", "su - root -c CMD".
func (c *checker) su(cl *call, name string, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	for _, a := range args {
		if !a.lit && (a.prefix == "" || a.prefix[0] == '-') {
			c.runtime(fmt.Sprintf("%s has an argument only known at run time (%s) that could be an option running a command", name, short(a.val)), a.val, a.off)
			return call{}, false
		}
	}
	opts, operands := permutedOptions(args, suSpec)
	if cmd, ok := optVal(opts, "-c", "--command", "--session-command"); ok {
		c.code(cl, cmd, name+" -c")
		return call{}, false
	}
	if name == "runuser" && hasOpt(opts, "-u", "--user") {
		// runuser -u USER [--] CMD: everything after the options is the command.
		_, i := parseOpts(args, suSpec)
		return inner(args[i:], "runuser -u")
	}
	// su USER ARGS: the arguments after the user go to the user's shell.
	if len(operands) > 1 {
		c.shell(cl, name, operands[1:])
	}
	return call{}, false
}

// rgOptions checks ripgrep's --pre and --hostname-bin, whose value is a
// program ripgrep runs.
func (c *checker) rgOptions(cl *call, args []word, inner func([]word, string) (call, bool)) {
	opts, _ := permutedOptions(args, optSpec{
		short: "efgmAaBCEjMrtT",
		long:  []string{"pre", "pre-glob", "hostname-bin", "regexp", "file", "glob", "iglob", "max-count", "after-context", "before-context", "context", "encoding", "threads", "max-columns", "replace", "type", "type-not", "type-add", "type-clear", "path-separator", "colors", "color", "sort", "sortr", "max-depth", "max-filesize", "dfa-size-limit", "regex-size-limit", "engine", "field-context-separator", "field-match-separator", "context-separator", "ignore-file", "hyperlink-format"},
		flags: []string{"search-zip", "pcre2", "json", "files", "files-with-matches", "files-without-match", "count", "count-matches", "hidden", "no-ignore", "ignore-case", "smart-case", "case-sensitive", "fixed-strings", "word-regexp", "line-regexp", "invert-match", "line-number", "no-line-number", "only-matching", "multiline", "follow", "text", "null", "null-data", "quiet", "vimgrep", "heading", "no-heading", "stats", "trim", "unrestricted", "debug", "trace", "help", "version", "no-messages", "no-config", "one-file-system", "passthru", "no-pre"},
	})
	for _, o := range opts {
		if o.hasVal && o.is("--pre", "--hostname-bin") {
			if n, ok := inner([]word{o.val}, "rg "+o.name); ok {
				c.runCall(n)
			}
		}
	}
}
