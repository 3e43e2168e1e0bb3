package policy

import (
	"slices"
	"strings"
)

// fdExec handles fd -x/--exec CMD... and -X/--exec-batch CMD...: the rest
// of the words, up to ";", is a command fd runs with the file names in
// place of {} (or added at the end).
func (c *checker) fdExec(cl *call, args []word, inner func([]word, string) (call, bool)) {
	for i, a := range args {
		if !a.lit {
			continue
		}
		exec := a.val == "-x" || a.val == "-X"
		if !exec {
			for _, full := range []string{"--exec", "--exec-batch"} {
				if _, eq, ok := longMatch(a.val, full, 3); ok && !eq {
					exec = true
				}
			}
		}
		if !exec {
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && args[j].val == ";") {
			j++
		}
		if n, ok := inner(placeholderCommand(args[i+1:j], "{"), "fd "+a.val); ok {
			n.placeholder = "{"
			c.runCall(n)
		}
		return
	}
}

// clientShellEscape checks the shell escapes of database and debugger
// clients in the commands they are given: psql -c '\! CMD', sqlite3 DB
// '.shell CMD', mysql -e 'system CMD', gdb -ex 'shell CMD', lftp -c '!CMD'.
func (c *checker) clientShellEscape(cl *call, name string, args []word) {
	for i, a := range args {
		var cmd word
		switch {
		case a.lit && (a.val == "-c" || a.val == "--command" || a.val == "-e" || a.val == "--execute" || a.val == "-ex" || a.val == "--eval-command" || a.val == "-cmd") && i+1 < len(args):
			cmd = args[i+1]
		case name == "sqlite3" && i > 0 && !strings.HasPrefix(a.val, "-"):
			cmd = a
		default:
			continue
		}
		if !cmd.lit {
			continue
		}
		for _, line := range strings.FieldsFunc(cmd.val, func(r rune) bool { return r == '\n' || r == ';' && name != "sqlite3" }) {
			t := strings.TrimSpace(line)
			code := ""
			for _, p := range []string{`\!`, "!", ".shell ", ".system ", "system ", "shell "} {
				if strings.HasPrefix(t, p) {
					code = strings.TrimSpace(t[len(p):])
					break
				}
			}
			if code == "" {
				continue
			}
			v := attached(cmd, code)
			v.exact = false
			c.nested(code, v, append(slices.Clip(cl.wrappers), name+" shell escape"), "the shell command run by "+name)
		}
	}
}
