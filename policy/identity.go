package policy

import (
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// systemDirs are the directories whose programs a bare allow-list name
// also allows: "/usr/bin/git" is the git the list means.
var systemDirs = map[string]bool{
	"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true, "/usr/local/bin": true, "/usr/local/sbin": true,
}

// splitPaths sorts allow-list entries into bare names (lower-case) and
// paths (cleaned).
func splitPaths(entries []string) (names, paths map[string]bool) {
	names = map[string]bool{}
	for _, e := range entries {
		if strings.ContainsRune(e, '/') {
			if paths == nil {
				paths = map[string]bool{}
			}
			paths[cleanPath(e)] = true
			continue
		}
		names[strings.ToLower(e)] = true
	}
	return names, paths
}

// cleanPath resolves "." and ".." as text, keeping a leading "./" so that a
// relative path stays visibly relative.
func cleanPath(p string) string {
	c := path.Clean(p)
	if !strings.HasPrefix(c, "/") && !strings.HasPrefix(c, "~") && !strings.HasPrefix(c, "../") && c != ".." {
		c = "./" + c
	}
	return c
}

// allowedProgram reports whether the command word (its literal value)
// names a program on the allow list: a bare name on it, the same name in a
// system directory, or a path on it.
func (p *Policy) allowedProgram(val string) bool {
	if !strings.ContainsRune(val, '/') {
		return p.allowed[strings.ToLower(val)]
	}
	c := cleanPath(val)
	if p.allowedPath[c] {
		return true
	}
	dir, base := path.Split(c)
	return systemDirs[strings.TrimSuffix(dir, "/")] && p.allowed[strings.ToLower(base)]
}

// hijackVariable reports variables that change which program a name runs,
// or what an allowed program loads and runs: refused under an allow list.
func hijackVariable(name string) bool {
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "PATH", "BASH_ENV", "ENV", "BASH_CMDS", "BASH_ALIASES", "SHELLOPTS", "BASHOPTS", "PYTHONPATH", "PYTHONSTARTUP",
		"PYTHONHOME", "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "GIT_EXEC_PATH",
		"IFS", "PROMPT_COMMAND", "PS4", "GCONV_PATH", "LOCPATH", "HOSTALIASES", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "BASH_FUNC_")
}

// deniedEquivalent returns the denied program that a command stands for
// when it is not named directly: systemctl poweroff is poweroff, telinit 6
// is init. It returns "" otherwise.
func (p *Policy) deniedEquivalent(cl *call, name string) (string, word) {
	args := cl.args()
	switch name {
	case "systemctl", "loginctl":
		_, i := parseOpts(args, optSpec{short: "tpPHMnoS", long: []string{"type", "property", "host", "machine", "lines", "output", "signal", "kill-whom", "kill-value", "root", "image", "state", "job-mode", "what", "boot-loader-menu", "boot-loader-entry", "reboot-argument", "message", "timestamp", "when", "check-inhibitors", "preset-mode", "image-policy", "drop-in", "marked", "legend"}})
		if i >= len(args) || !args[i].lit {
			return "", word{}
		}
		verb := strings.ToLower(args[i].val)
		target := ""
		switch verb {
		case "poweroff", "halt", "reboot":
			target = verb
		case "kexec", "soft-reboot":
			target = "reboot"
		case "isolate", "start", "restart", "reload-or-restart", "try-restart":
			for _, a := range args[i+1:] {
				switch u := strings.TrimSuffix(strings.ToLower(a.val), ".target"); u {
				case "poweroff", "halt", "reboot", "kexec", "soft-reboot", "runlevel0", "runlevel6", "ctrl-alt-del":
					if u == "runlevel0" {
						return p.deniedName("poweroff"), a
					}
					if u != "poweroff" && u != "halt" {
						u = "reboot"
					}
					if d := p.deniedName(u); d != "" {
						return d, a
					}
				}
			}
		}
		if target != "" {
			return p.deniedName(target), args[i]
		}
	case "kexec":
		for _, a := range args {
			if a.lit && (a.val == "-e" || a.val == "--exec" || a.val == "-f" || a.val == "--force") {
				return p.deniedName("reboot"), a
			}
		}
	case "tee", "cp", "install", "truncate", "blkdiscard", "sgdisk", "wipefs", "mkswap":
		// Writing or erasing a disk device is what dd and mkfs do.
		for _, a := range args {
			if a.lit && blockDevice(a.val) {
				if d := p.deniedName("dd"); d != "" {
					return d, a
				}
				return p.deniedName("mkfs"), a
			}
		}
	case "telinit", "init":
		for _, a := range args {
			if a.lit && (a.val == "0" || a.val == "6") {
				if d := p.deniedName("init"); d != "" {
					return d, a
				}
				if a.val == "0" {
					return p.deniedName("poweroff"), a
				}
				return p.deniedName("reboot"), a
			}
		}
	}
	return "", word{}
}

// deniedName returns name when it is on the deny list.
func (p *Policy) deniedName(name string) string {
	if p.isDenied(name) {
		return name
	}
	return ""
}

// patternLiterals collects the literal strings of each pattern, which are
// tried in place of words only known at run time.
func patternLiterals(res []*regexp.Regexp) [][]string {
	out := make([][]string, len(res))
	for i, re := range res {
		t, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			continue
		}
		seen := map[string]bool{}
		var walk func(*syntax.Regexp)
		walk = func(r *syntax.Regexp) {
			if r.Op == syntax.OpLiteral {
				s := strings.TrimSpace(string(r.Rune))
				if s != "" && !seen[s] && len(out[i]) < 32 {
					seen[s] = true
					out[i] = append(out[i], s)
				}
			}
			for _, sub := range r.Sub {
				walk(sub)
			}
		}
		walk(t)
		for _, s := range slices.Clone(out[i]) {
			// "--force" also appears as the words of a longer literal, "push --force".
			for _, f := range strings.Fields(s) {
				if !seen[f] && len(out[i]) < 48 {
					seen[f] = true
					out[i] = append(out[i], f)
				}
			}
		}
	}
	return out
}
