package policy

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// vim runs Ex commands from -c CMD, --cmd CMD and +CMD. An Ex command
// that runs a shell command in a form the policy can read (":!cmd",
// ":silent !cmd", ":%!cmd", ":r !cmd", ":w !cmd") has that command
// checked as shell code; any other Ex command that can run programs
// (system(), :lua, :python, :terminal, :source, :execute, ...) is asked
// about, because what it runs is decided when vim evaluates it.
func (c *checker) vim(cl *call, name string, args []word) {
	for i, a := range args {
		var cmd word
		switch {
		case a.lit && (a.val == "-c" || a.val == "--cmd" || a.val == "-S" || a.val == "--remote-send" || a.val == "--remote-expr") && i+1 < len(args):
			cmd = args[i+1]
			if a.val == "-S" {
				c.dynamic(fmt.Sprintf("%s -S sources a script file, whose commands the policy cannot check. Run the commands directly.", name), cmd.written(), cmd.off)
				continue
			}
		case a.lit && strings.HasPrefix(a.val, "+") && len(a.val) > 1:
			cmd = attached(a, a.val[1:])
		case a.lit && strings.HasPrefix(a.val, "-c") && len(a.val) > 2:
			cmd = attached(a, a.val[2:])
		default:
			continue
		}
		if !cmd.lit {
			c.runtime(fmt.Sprintf("%s runs the Ex command %s, only known at run time", name, pyRepr(short(cmd.val))), cmd.written(), cmd.off)
			continue
		}
		for _, ex := range splitEx(cmd.val) {
			c.exCommand(cl, name, cmd, ex)
		}
	}
}

// splitEx splits Ex commands joined by "|" (a "|" after ! is part of the
// shell command, so the rest is kept whole).
func splitEx(s string) []string {
	var out []string
	for {
		bang := strings.IndexByte(s, '!')
		bar := strings.IndexByte(s, '|')
		if bar < 0 || bang >= 0 && bang < bar {
			return append(out, s)
		}
		out = append(out, s[:bar])
		s = s[bar+1:]
	}
}

// exBang matches the Ex forms whose "!" runs a shell command: an optional
// range (%, 1,5, ., $, 'a), silent, read and write, then "!".
var exBang = regexp.MustCompile(`^[\s:]*(?:sil(?:e(?:n(?:t)?)?)?!?\s*)?(?:(?:%|[0-9.$,+-]|'[a-z<>])*\s*(?:r(?:e(?:a(?:d)?)?)?|w(?:r(?:i(?:t(?:e)?)?)?)?|\.)?\s*)!(.*)$`)

// exRuns are Ex commands and functions that can run a program.
var exRuns = map[string]bool{"system": true, "systemlist": true, "libcall": true, "libcallnr": true, "jobstart": true, "job_start": true, "termopen": true, "term_start": true, "chansend": true, "rpcrequest": true, "rpcnotify": true, "luaeval": true, "pyeval": true, "py3eval": true, "pyxeval": true, "perleval": true, "rubyeval": true, "execute": true, "exe": true, "exec": true, "lua": true, "luado": true, "luafile": true, "py": true, "python": true, "py3": true, "python3": true, "pyx": true, "pythonx": true, "pydo": true, "py3do": true, "pyfile": true, "py3file": true, "perl": true, "perldo": true, "ruby": true, "rubydo": true, "rubyfile": true, "tcl": true, "tcldo": true, "tclfile": true, "mzscheme": true, "mz": true, "ter": true, "term": true, "termi": true, "termin": true, "termina": true, "terminal": true, "sh": true, "shell": true, "so": true, "sou": true, "sour": true, "sourc": true, "source": true, "ru": true, "runtime": true, "mak": true, "make": true, "gr": true, "grep": true, "lgr": true, "lgrep": true, "cs": true, "cscope": true, "norm": true, "normal": true, "cal": true, "call": true, "let": true, "au": true, "autocmd": true, "vimgrep": true, "redir": true, "filt": true, "filter": true, "helpg": true, "diffpatch": true, "wincmd": true}

func (c *checker) exCommand(cl *call, name string, cmd word, ex string) {
	if m := exBang.FindStringSubmatch(ex); m != nil {
		code := strings.TrimSpace(m[1])
		if code == "" {
			return
		}
		v := attached(cmd, code)
		v.exact = false
		c.nested(code, v, append(slices.Clip(cl.wrappers), name+" -c !"), "the shell command run by "+name)
		return
	}
	trimmed := strings.TrimLeft(ex, ": \t")
	if trimmed == "" || isDigits(trimmed) || strings.HasPrefix(trimmed, "/") && !strings.ContainsAny(trimmed, "|!") || trimmed == "q" || trimmed == "q!" || trimmed == "qa" || trimmed == "qa!" {
		return // a line number, a search, quit
	}
	if strings.ContainsRune(trimmed, '!') {
		c.dynamic(fmt.Sprintf("%s runs the Ex command %s, which can run a shell command the policy cannot read. Run the commands directly, or ask the user.", name, pyRepr(short(ex))), cmd.written(), cmd.off)
		return
	}
	for _, w := range strings.FieldsFunc(trimmed, func(r rune) bool { return r > 127 || !isWordByte(byte(r)) }) {
		if exRuns[strings.ToLower(w)] {
			c.dynamic(fmt.Sprintf("%s runs the Ex command %s, which can run programs the policy cannot check. Run the commands directly, or ask the user.", name, pyRepr(short(ex))), cmd.written(), cmd.off)
			return
		}
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
