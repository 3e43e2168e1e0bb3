package policy

import (
	"strings"
)

// deniedAbbreviation reports whether a long option given on the command
// line ("--out") abbreviates one of the denied long options ("--output"),
// as getopt_long would read it.
func deniedAbbreviation(given string, deny []string) bool {
	if !strings.HasPrefix(given, "--") || len(given) < 4 {
		return false
	}
	for _, d := range deny {
		if strings.HasPrefix(d, "--") && strings.HasPrefix(d, given) {
			return true
		}
	}
	return false
}

func allLiteral(args []word) bool {
	for _, a := range args {
		if !a.lit {
			return false
		}
	}
	return true
}

// shellRunsString reports a shell started only to run a literal -c string
// ("bash -lc 'ls'"), whose commands the walker judges one by one; options
// that read other files (--rcfile) or run code make it not read-only.
func shellRunsString(args []word) bool {
	cmdMode, _, _, i := shellOptions(args)
	if !cmdMode || i >= len(args) || !args[i].lit {
		return false
	}
	for _, a := range args[:i] {
		if !a.lit {
			return false
		}
		switch {
		case a.val == "--rcfile" || a.val == "--init-file" || strings.HasPrefix(a.val, "--rcfile=") || strings.HasPrefix(a.val, "--init-file="):
			return false
		case strings.HasPrefix(a.val, "-") && !strings.HasPrefix(a.val, "--"):
			if strings.Trim(a.val[1:], "lceuxvo") != "" && a.val != "-o" {
				return false
			}
		}
	}
	return true
}

// printfReadOnly: printf -v assigns a shell variable, which changes state.
func printfReadOnly(args []word) bool {
	for _, a := range args {
		if !a.lit {
			return false
		}
		if a.val == "--" || !strings.HasPrefix(a.val, "-") {
			return true
		}
		if strings.HasPrefix(a.val, "-v") {
			return false
		}
	}
	return true
}

// noVarTest: test -v NAME evaluates an array subscript in NAME as
// arithmetic, which can run command substitutions.
func noVarTest(args []word) bool {
	for i, a := range args {
		if !a.lit {
			return false
		}
		if a.val == "-v" && i+1 < len(args) && strings.ContainsAny(args[i+1].val, "[$`") {
			return false
		}
	}
	return true
}

// sedReadOnly accepts sed scripts that only print: sed -n '10,20p' FILE,
// sed -n '/re/p', sed 's/a/b/g' (to standard output). Scripts with w, W,
// r, R, e, the s///w and s///e flags, -i or a script file are not.
func sedReadOnly(args []word) bool {
	var scripts []string
	expectScript := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			return false
		}
		v := a.val
		switch {
		case v == "-n" || v == "--quiet" || v == "--silent" || v == "-E" || v == "-r" || v == "--regexp-extended" ||
			v == "-s" || v == "--separate" || v == "-u" || v == "--unbuffered" || v == "-z" || v == "--null-data" ||
			v == "--posix" || v == "--debug" || v == "-nE" || v == "-En" || v == "-rn" || v == "-nr" || v == "--sandbox":
		case v == "-e" || v == "--expression":
			if i+1 >= len(args) {
				return false
			}
			i++
			scripts = append(scripts, args[i].val)
			expectScript = false
		case strings.HasPrefix(v, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(v, "--expression="))
			expectScript = false
		case strings.HasPrefix(v, "-") && v != "-":
			return false // -i, -f, --in-place, -l N and anything unknown
		case expectScript:
			scripts = append(scripts, v)
			expectScript = false
		}
	}
	if len(scripts) == 0 {
		return false
	}
	for _, s := range scripts {
		if !sedScriptPrints(s) {
			return false
		}
	}
	return true
}

// sedScriptPrints parses a sed script conservatively and reports whether
// every command only prints, deletes from the output or substitutes
// without the w and e flags.
func sedScriptPrints(s string) bool {
	i := 0
	skipAddr := func() bool {
		for i < len(s) {
			ch := s[i]
			switch {
			case ch >= '0' && ch <= '9' || ch == '$' || ch == ',' || ch == '~' || ch == '+' || ch == ' ' || ch == '!':
				i++
			case ch == '/' || ch == '\\':
				delim := byte('/')
				if ch == '\\' {
					if i+1 >= len(s) {
						return false
					}
					i++
					delim = s[i]
				}
				i++
				for i < len(s) && s[i] != delim {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return false
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return true
			}
		}
		return true
	}
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= len(s) {
			break
		}
		if !skipAddr() || i >= len(s) {
			return i >= len(s)
		}
		switch cmd := s[i]; cmd {
		case 'p', 'P', '=', 'l', 'q', 'Q', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', 'z', 'F', '{', '}':
			i++
			for i < len(s) && s[i] >= '0' && s[i] <= '9' { // q5, l 40
				i++
			}
		case 's', 'y':
			if i+1 >= len(s) {
				return false
			}
			delim := s[i+1]
			if delim == '\\' || delim == '\n' {
				return false
			}
			i += 2
			for part := 0; part < 2; part++ {
				for i < len(s) && s[i] != delim {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return false
				}
				i++
			}
			if cmd == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
			}
		default:
			return false // w, W, r, R, e, a, i, c, b, t, T, :label, v, ...
		}
	}
	return true
}
