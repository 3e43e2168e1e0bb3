// Package fdaudit lists the descriptors of a shell from inside it and
// judges them, for tests that prove what a confined command can reach
// through descriptors it was given: a listing is made by running Script in
// the shell (confined command, session or job), and Check names every
// descriptor that is not a pipe, a socket, a memfd, a null-like device or
// terminal, or a file beneath what the profile grants.
package fdaudit

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Script makes the shell running it list its own descriptors, one line
// each: "fd N FLAGS TARGET", FLAGS the octal open flags from fdinfo.
const Script = `for __f in /proc/$$/fd/*; do __n=${__f##*/}; __l=$(readlink "$__f") || continue; ` +
	`__fl=$(sed -n 's/^flags:[[:space:]]*//p' /proc/$$/fdinfo/$__n 2>/dev/null); ` +
	`printf 'fd %s %s %s\n' "$__n" "${__fl:-?}" "$__l"; done`

// Grants is what a descriptor may reach.
type Grants struct {
	// Writable are the roots the profile lets the command write (the
	// workspace with workspace-write); their .shellcap is not granted.
	Writable []string
	// Readable are further roots it may read.
	Readable []string
}

// Entry is one listed descriptor.
type Entry struct {
	FD     int
	Flags  int64
	Target string
}

// Parse reads Script's output; lines that are not its own are ignored.
func Parse(out string) []Entry {
	var es []Entry
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, " ", 4)
		if len(f) != 4 || f[0] != "fd" {
			continue
		}
		fd, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		flags, err := strconv.ParseInt(f[2], 8, 64)
		if err != nil {
			flags = -1
		}
		es = append(es, Entry{FD: fd, Flags: flags, Target: f[3]})
	}
	return es
}

var nullLike = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/full": true, "/dev/random": true, "/dev/urandom": true, "/dev/tty": true,
}

// Check returns a description of every entry that g does not allow; none
// means the listing is clean. An empty listing is itself reported: a
// check that saw nothing proves nothing.
func Check(es []Entry, g Grants) []string {
	if len(es) == 0 {
		return []string{"no descriptors were listed"}
	}
	var bad []string
	for _, e := range es {
		if why := g.judge(e); why != "" {
			bad = append(bad, fmt.Sprintf("fd %d -> %s (flags %o): %s", e.FD, e.Target, e.Flags, why))
		}
	}
	return bad
}

func (g Grants) judge(e Entry) string {
	t := e.Target
	switch {
	case strings.HasPrefix(t, "pipe:["), strings.HasPrefix(t, "socket:["):
		return ""
	case strings.HasPrefix(t, "/memfd:"):
		return ""
	case nullLike[t], strings.HasPrefix(t, "/dev/pts/"):
		return ""
	case !filepath.IsAbs(t):
		return "not a pipe, socket, memfd or file"
	case strings.HasSuffix(t, " (deleted)"):
		return "a deleted file"
	}
	writable := e.Flags < 0 || e.Flags&3 != 0
	for _, w := range g.Writable {
		if under(t, filepath.Join(w, ".shellcap")) {
			return "inside shellcap's hidden state directory"
		}
		if under(t, w) {
			return ""
		}
	}
	if writable {
		return "a writable file outside the writable roots"
	}
	for _, r := range g.Readable {
		if under(t, r) {
			return ""
		}
	}
	return "a file outside the granted roots"
}

func under(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
