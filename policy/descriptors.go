package policy

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shell reads its program from a file, and a file can be a descriptor:
// /dev/stdin, /dev/fd/N, /proc/self/fd/N, /proc/$$/fd/N, written with
// extra slashes or dots. The walker keeps a table of what each descriptor
// reads, as set by the redirections of a command ("3<<EOF", "<&3",
// "3<&0") and by exec for the shell itself ("exec 4<<EOF"), follows a
// program path to the descriptor it names, and checks the here-document,
// here-string or piped text the descriptor reads exactly like "bash <<EOF".

// fdTable maps a descriptor above 2 to what it reads: a literal text, text
// only known at run time, or nil for a file (a script file, not analysed).
// It is copied on write.
type fdTable map[int]*stdinSource

// maxDescriptors bounds the descriptors tracked, so that a crafted command
// cannot make the table costly to copy.
const maxDescriptors = 32

func (t fdTable) with(n int, src *stdinSource) fdTable {
	if _, ok := t[n]; !ok && len(t) >= maxDescriptors {
		return t // past the limit a descriptor reads as not set, which asks
	}
	out := make(fdTable, len(t)+1)
	maps.Copy(out, t)
	out[n] = src
	return out
}

// redirectFD returns the descriptor a redirection sets.
func redirectFD(r *syntax.Redirect) int {
	if r.N != nil {
		if n, err := strconv.Atoi(r.N.Value); err == nil {
			return n
		}
		return -1 // {var}<file: a descriptor chosen at run time
	}
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return 0
	}
	return 1
}

// bindDescriptor records what the descriptor a redirection sets will read.
func (c *checker) bindDescriptor(r *syntax.Redirect, ctx *stmtCtx) {
	n := redirectFD(r)
	var src *stdinSource
	switch r.Op {
	case syntax.DplIn, syntax.DplOut:
		// n<&m and n>&m make n a copy of m.
		t := c.resolve(r.Word)
		m, err := strconv.Atoi(strings.TrimSuffix(t.val, "-"))
		switch {
		case !t.lit:
			src = &stdinSource{off: t.off, written: "descriptor " + t.val}
		case t.val == "-":
			src = nil // closed
		case err != nil:
			if r.Op == syntax.DplIn {
				src = &stdinSource{off: t.off, written: pyRepr(t.val)}
			}
		default:
			src = c.descriptorSource(*ctx, m, t.off)
		}
	case syntax.RdrIn, syntax.RdrInOut:
		src = c.redirectInput(r)
		// "< /dev/stdin" and "< /dev/fd/3" open what a descriptor reads.
		if t := c.resolve(r.Word); src == nil {
			if m, ok := descriptorOf(c.skeleton(t)); ok && m >= 0 {
				src = c.descriptorSource(*ctx, m, t.off)
			} else if ok && (ctx.stdin != nil || ctx.stdinPipe || len(ctx.fds) > 0) {
				// A path only known at run time may name one of them.
				src = &stdinSource{off: t.off, written: pyRepr(short(t.val))}
			}
		}
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		src = c.redirectInput(r)
	}
	switch {
	case n == 0:
		if r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.RdrAllClob || r.Op == syntax.AppAllClob {
			return
		}
		ctx.stdinRedir, ctx.stdinPipe = true, false
		ctx.stdin = src
	case n > 2:
		ctx.fds = ctx.fds.with(n, src)
	case n < 0:
		ctx.fds = ctx.fds.with(-1, &stdinSource{off: c.off(r.OpPos), written: c.text(r)})
	}
}

// descriptorSource returns what descriptor m reads in ctx: for one the
// command does not set, text only known at run time.
func (c *checker) descriptorSource(ctx stmtCtx, m int, off int) *stdinSource {
	if m == 0 {
		if ctx.stdin != nil && ctx.stdin.pipe != nil {
			return c.pipeSource(ctx.stdin.pipe)
		}
		if ctx.stdin != nil || ctx.stdinRedir || ctx.stdinPipe {
			return ctx.stdin
		}
		return &stdinSource{off: off, written: "the standard input the command was given"}
	}
	if src, ok := ctx.fds[m]; ok {
		return src
	}
	return &stdinSource{off: off, written: fmt.Sprintf("descriptor %d (not set by the command)", m)}
}

// execOnly reports an exec with redirections and no command: it changes
// the shell's own descriptors.
func execOnly(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(s.Redirs) == 0 {
		return false
	}
	lit, ok := call.Args[0].Parts[0].(*syntax.Lit)
	return ok && len(call.Args[0].Parts) == 1 && lit.Value == "exec"
}

// persist makes the descriptors of ctx the shell's, for later commands.
func (c *checker) persist(ctx stmtCtx) {
	if ctx.stdinRedir {
		in := ctx.stdin
		if in != nil && in.pipe != nil {
			in = c.pipeSource(in.pipe)
		}
		c.shellFDs.stdin, c.shellFDs.stdinRedir = in, true
	}
	if len(ctx.fds) > 0 {
		merged := make(fdTable, len(c.shellFDs.fds)+len(ctx.fds))
		maps.Copy(merged, c.shellFDs.fds)
		maps.Copy(merged, ctx.fds)
		c.shellFDs.fds = merged
	}
}

// withShellDescriptors adds the descriptors the shell has to those a
// command sets itself.
func (c *checker) withShellDescriptors(ctx stmtCtx) stmtCtx {
	if !ctx.stdinRedir && !ctx.stdinPipe && c.shellFDs.stdinRedir {
		ctx.stdin, ctx.stdinRedir = c.shellFDs.stdin, true
	}
	switch {
	case len(c.shellFDs.fds) == 0:
	case len(ctx.fds) == 0:
		ctx.fds = c.shellFDs.fds // shared: tables are copied on write
	default:
		merged := make(fdTable, len(c.shellFDs.fds)+len(ctx.fds))
		maps.Copy(merged, c.shellFDs.fds)
		maps.Copy(merged, ctx.fds)
		ctx.fds = merged
	}
	return ctx
}

// inherited returns the context for code run by c.inherit (bash -c, eval):
// its standard input and descriptors.
func (c *checker) inherited() stmtCtx {
	cl := c.inherit
	c.inherit = nil
	if cl == nil {
		return stmtCtx{}
	}
	ctx := stmtCtx{stdin: cl.stdin, stdinPipe: cl.stdinPipe, stdinRedir: cl.stdinRedir, fds: cl.fds}
	if ctx.stdin != nil && ctx.stdin.pipe != nil {
		ctx.stdin = c.pipeSource(ctx.stdin.pipe)
	}
	return ctx
}

var (
	fdPathRE   = regexp.MustCompile(`^/(?:dev/fd|proc/[^/]+/fd|proc/[^/]+/task/[^/]+/fd)/([0-9]+)$`)
	fdRelRE    = regexp.MustCompile(`(?:^|/)fd/([0-9]+)$`)
	fdSamples  = []string{"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/dev/fd/3", "/proc/self/fd/3"}
	stdStreams = map[string]int{"stdin": 0, "stdout": 1, "stderr": 2}
)

// descriptorOf returns the descriptor a path names: n >= 0 when known, -1
// when the path may name one only known at run time, and ok false when it
// names no descriptor. skel is the path with "*" for each part only known
// at run time.
func descriptorOf(skel string) (n int, ok bool) {
	if strings.Contains(skel, "*") {
		for _, p := range []string{`^/proc/[^/]*/fd/([0-9]+)$`, `^/proc/[^/]*/task/[^/]*/fd/([0-9]+)$`} {
			if m := regexp.MustCompile(p).FindStringSubmatch(path.Clean(skel)); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n, true
			}
		}
		re, err := regexp.Compile("^" + strings.ReplaceAll(regexp.QuoteMeta(skel), `\*`, ".*") + "$")
		if err != nil {
			return -1, true
		}
		for _, s := range fdSamples {
			if re.MatchString(s) {
				return -1, true
			}
		}
		return 0, false
	}
	clean := path.Clean(skel)
	if strings.HasPrefix(clean, "/") {
		if d, f := path.Split(clean); d == "/dev/" {
			if n, ok := stdStreams[f]; ok {
				return n, true
			}
		}
		if m := fdPathRE.FindStringSubmatch(clean); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n, true
		}
		return 0, false
	}
	// A relative path names a descriptor from /dev or /proc/self.
	if n, ok := stdStreams[path.Base(clean)]; ok && strings.Contains("/"+clean, "/dev/") {
		return n, true
	}
	if m := fdRelRE.FindStringSubmatch(clean); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, true
	}
	return 0, false
}

// skeleton returns a word as written with quotes removed and "*" for each
// part only known at run time.
func (c *checker) skeleton(w word) string {
	if w.lit {
		return w.val
	}
	if w.node == nil {
		return "*"
	}
	var b strings.Builder
	for _, p := range w.node.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			var skel strings.Builder
			v, _ := unescapeUnquoted(x.Value, &skel)
			b.WriteString(v)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				} else {
					b.WriteByte('*')
				}
			}
		default:
			b.WriteByte('*')
		}
	}
	return b.String()
}

// descriptorProgram checks the program a shell or source reads from the
// file w, when w names a descriptor. Any other file is a script, whose
// contents the policy does not see.
func (c *checker) descriptorProgram(cl *call, w word, label string) {
	n, ok := descriptorOf(c.skeleton(w))
	if !w.lit && !(ok && n >= 0) && (cl.stdin != nil || cl.stdinPipe || len(cl.fds) > 0) {
		// A path only known at run time may name a descriptor, or be an
		// option or nothing at all ("$1"+ is "+"), and the shell then
		// reads the program its input holds.
		n, ok = -1, true
	}
	if !ok {
		return
	}
	if n < 0 {
		if cl.stdin != nil || cl.stdinPipe || len(cl.fds) > 0 {
			c.dynamic(fmt.Sprintf("%s reads its program from %s, which is only known at run time and may name a descriptor, or be an option or nothing so that the program is read from standard input; the policy cannot check what it runs. Write the path literally, or run the commands directly.", pyRepr(label), short(w.val)), w.written(), w.off)
		}
		return
	}
	if n == 0 {
		c.stdinProgram(cl, label)
		return
	}
	src, set := cl.fds[n]
	switch {
	case set && src == nil:
		return // a file: a script
	case !set:
		src = &stdinSource{off: w.off, written: fmt.Sprintf("descriptor %d (not set by the command)", n)}
	}
	in := *cl
	in.stdin, in.stdinRedir, in.stdinPipe = src, true, false
	c.stdinProgram(&in, label)
}
