package policy

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command the shell could run, as the policy found it
// in the syntax tree: at the top level, in a pipeline or list, in a
// substitution, behind a wrapper such as sudo or xargs, or in code passed to
// eval or bash -c. Custom receives one for each command.
type Command struct {
	// Name is the base name of the program, as written: "rm" for "/bin/rm".
	// It is empty when Dynamic.
	Name string
	// Path is the value of the command word: "/bin/rm" for "/bin/rm" and for
	// "\/bin/rm". For a dynamic command word it is the word as written.
	Path string
	// Args are the words after the command word: their literal values with
	// quotes removed, or the word as written when it is only known at run
	// time (see DynamicArgs).
	Args []string
	// DynamicArgs[i] reports whether Args[i] is only known at run time: it
	// holds an expansion, a substitution, or a glob or brace pattern.
	DynamicArgs []bool
	// Dynamic reports that the command word itself is only known at run
	// time ($CMD, "$(which rm)", ${X:-rm}, r*), so the policy cannot name
	// the program.
	Dynamic bool
	// Env holds the NAME=value assignments the command runs with, from
	// prefix assignments and from env, as written.
	Env []string
	// Text is the normalised command line that DenyPatterns and
	// AllowPatterns match: Name (or Path, when Dynamic) and Args joined by
	// single spaces, quotes removed, with the program's global options out
	// of the way and git's abbreviated options written out (see
	// Rules.DenyPatterns). Assignments, redirections and wrappers are not
	// part of it ("sudo FOO=1 /bin/rm -rf 'a b'" gives the two commands
	// "sudo /bin/rm -rf a b" and "rm -rf a b"; "git -C . push --force" is
	// "git push --force").
	Text string
	// Pos is the position of the command word.
	Pos Pos
	// Wrappers lists what runs this command, outermost first: "sudo",
	// "xargs", "find -exec", "eval", "bash -c", "alias", ... Empty for a
	// command the shell runs directly.
	Wrappers []string
	// StdinPipe reports that standard input comes from a pipe.
	StdinPipe bool
	// StdinRedirected reports that standard input comes from a file, a
	// here-document or a here-string.
	StdinRedirected bool
	// WritesFiles reports an output redirection to a file other than
	// /dev/null (or a standard stream).
	WritesFiles bool
}

// word is a resolved shell word.
type word struct {
	node   *syntax.Word // nil for words the policy made up (env -S)
	val    string       // literal value; the source text if !lit
	raw    string       // the word as written
	prefix string       // literal value of the leading literal parts
	lit    bool         // val is exactly what the program receives
	off    int          // offset of the word in the checked text
	valOff int          // offset where val starts, when exact
	exact  bool         // val maps byte for byte onto the checked text at valOff
	procSu bool         // the whole word is a process substitution
}

// call is one command as the walker sees it, with its context.
type call struct {
	words      []word
	env        []string
	wrappers   []string
	stdinPipe  bool
	stdinRedir bool
	stdoutAway bool
	writes     bool
	stdin      *stdinSource // what a program reading stdin would read, when known
	fds        fdTable      // what descriptors above 2 read, when set (see descriptors.go)
	// moreArgs reports that xargs adds arguments from its input at run
	// time; placeholder is the text that xargs -I, find -exec or parallel
	// replaces with input ("{}"), when there is one.
	moreArgs    bool
	placeholder string
	assigns     []word // the NAME=value words the command runs with, resolved
	dir         string // the directory it runs in, when env -C or a cd before it says
}

// stdinSource is the literal text a command reads on standard input, when
// the policy can know it: a here-document, a here-string, or the output of an
// echo on the left of a pipe.
type stdinSource struct {
	pipe    *syntax.Stmt // the left side of a pipe, resolved by pipeSource when needed
	text    string
	known   bool // text is the exact input; otherwise it is only known at run time
	off     int
	exact   bool
	valOff  int
	written string // how the input was given, for messages
}

// name returns the lower-case base name of the command word.
func (c *call) name() string {
	if len(c.words) == 0 || !c.words[0].lit {
		return ""
	}
	return baseName(c.words[0].val)
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	} else if i == len(s)-1 && len(s) > 1 {
		s = path.Base(s)
	}
	return strings.ToLower(s)
}

// args returns the argument words.
func (c *call) args() []word {
	if len(c.words) == 0 {
		return nil
	}
	return c.words[1:]
}

// text builds Command.Text.
func (c *call) text() string {
	var b strings.Builder
	for i, w := range c.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		if i == 0 && w.lit {
			b.WriteString(displayBase(w.val))
		} else {
			b.WriteString(w.val)
		}
	}
	return b.String()
}

// displayBase is the base name keeping the case as written.
func displayBase(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// command builds the exported view of c.
func (c *call) command(pos Pos) Command {
	cmd := Command{
		Env:             slices.Clone(c.env),
		Pos:             pos,
		Wrappers:        slices.Clone(c.wrappers),
		StdinPipe:       c.stdinPipe,
		StdinRedirected: c.stdinRedir,
		WritesFiles:     c.writes,
		Text:            patternText(c),
	}
	head := c.words[0]
	cmd.Path = head.val
	if head.lit {
		cmd.Name = displayBase(head.val)
	} else {
		cmd.Dynamic = true
	}
	for _, w := range c.words[1:] {
		cmd.Args = append(cmd.Args, w.val)
		cmd.DynamicArgs = append(cmd.DynamicArgs, !w.lit)
	}
	return cmd
}
