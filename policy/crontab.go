package policy

import (
	"fmt"
	"slices"
	"strings"
)

// crontab installs commands that cron runs later: from standard input
// ("crontab -"), or from a file the policy cannot read.
func (c *checker) crontab(cl *call, args []word) {
	opts, i := parseOpts(args, optSpec{short: "uTs", long: []string{"user"}})
	if hasOpt(opts, "-l", "-r", "-e", "-V", "-T", "--help", "--version", "-h") {
		return
	}
	file := word{val: "-", lit: true}
	if i < len(args) {
		file = args[i]
	}
	if file.lit && file.val == "-" {
		in := cl.stdin
		if in != nil && in.pipe != nil {
			in = c.pipeSource(in.pipe)
		}
		if in != nil && in.known {
			for _, line := range strings.Split(in.text, "\n") {
				if code := cronCommand(line); code != "" {
					w := word{val: code, lit: true, off: in.off}
					c.deferred(func() { c.nested(code, w, append(slices.Clip(cl.wrappers), "crontab"), "a crontab entry") })
				}
			}
			return
		}
		c.runtime("crontab installs commands read from its standard input", cl.words[0].written(), cl.words[0].off)
		return
	}
	c.dynamic(fmt.Sprintf("crontab installs the commands in %s, which cron runs later and the policy cannot read. Show the file first, or ask the user.", pyRepr(short(file.val))), file.written(), file.off)
}

// cronCommand returns the command of a crontab line: what follows the five
// time fields or an @keyword. Comments and variable settings have none.
func cronCommand(line string) string {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return ""
	}
	fields := strings.Fields(line)
	n := 5
	if strings.HasPrefix(fields[0], "@") {
		n = 1
	} else if isAssignment(fields[0]) && !strings.ContainsAny(fields[0][:strings.IndexByte(fields[0], '=')], " ") {
		return ""
	}
	rest := line
	for k := 0; k < n; k++ {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return ""
		}
		rest = rest[j:]
	}
	return strings.ReplaceAll(strings.TrimSpace(rest), "%", "\n")
}
