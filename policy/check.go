package policy

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxInputBytes is the largest command the policy analyses.
	maxInputBytes = 1 << 20
	// maxDepth caps nesting: brackets before parsing, and compound commands,
	// substitutions and nested shell code while walking.
	maxDepth = 100
	// parseBudgetFactor bounds the shell code parsed for one check (the
	// command and every string found to be code in it) to this many times
	// the command's size, plus parseBudgetSlack bytes.
	parseBudgetFactor = 4
	parseBudgetSlack  = 64 << 10
)

// Check decides whether command may run. It never runs anything, and is safe
// for concurrent use. A nil *Policy checks with the default rules.
//
// The verdict is Deny if any command, operator or rule denies (the first
// denial in source order is reported), else Ask if anything asks, else Allow.
func (p *Policy) Check(command string) Decision { return p.check(command, nil) }

// check is Check with a hook that is told the name of every command judged
// and, with dynamic set, that something was only known at run time. The
// bash oracle test uses it.
func (p *Policy) check(command string, trace func(name string, dynamic bool)) Decision {
	if p == nil {
		p = defaultPolicy
	}
	c := &checker{p: p, input: command, trace: trace}
	if d, bad := c.validateInput(); bad {
		return d
	}
	c.budget = parseBudgetFactor*len(command) + parseBudgetSlack
	c.src = source{text: command, exact: true}
	if f := c.parse(command, "the command"); f != nil {
		c.stmts(f.Stmts, stmtCtx{})
	}
	c.aliasesExpanded()
	if trace != nil {
		for _, f := range c.found {
			if f.d.Rule == ruleDynamic {
				trace("", true)
			}
		}
	}
	return c.decide()
}

// saw tells the trace hook about a command being judged.
func (c *checker) saw(cl *call) {
	if c.trace != nil && len(cl.words) > 0 && cl.words[0].lit {
		c.trace(baseName(cl.words[0].val), false)
	}
}

func (c *checker) validateInput() (Decision, bool) {
	if i := strings.IndexByte(c.input, 0); i >= 0 {
		return Decision{Verdict: Deny, Rule: ruleInvalidInput, Pos: c.pos(i),
			Reason: "The command contains a NUL byte, which cannot be passed to a shell. Remove it and try again."}, true
	}
	if !utf8.ValidString(c.input) {
		i := 0
		for i < len(c.input) {
			r, size := utf8.DecodeRuneInString(c.input[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		return Decision{Verdict: Deny, Rule: ruleInvalidInput, Pos: c.pos(i),
			Reason: "The command is not valid UTF-8. Write it as UTF-8 text and try again."}, true
	}
	if len(c.input) > maxInputBytes {
		return Decision{Verdict: Deny, Rule: ruleTooLong, Pos: c.pos(0),
			Reason: fmt.Sprintf("The command is %d bytes long; the policy analyses commands of at most %d bytes. Split the work into smaller commands, or write long content to a file in several steps.", len(c.input), maxInputBytes)}, true
	}
	return Decision{}, false
}

// checker holds the state of one Check call.
type checker struct {
	p      *Policy
	input  string
	lines  []int  // offsets of line starts in input, built on first use
	src    source // the code being walked
	depth  int
	budget int
	found  []finding
	fatal  *Decision // a denial that ends the walk (too deep)
	ncmds  int
	custom bool // a Custom decision allowed a command
	// later counts the enclosing code that runs later, if at all: a
	// variable's value, a git setting, an alias, a trap. Such code is
	// checked, but not for being interactive.
	later int
	trace func(name string, dynamic bool) // see Policy.check
	// shellFDs holds the descriptors that exec redirections gave the shell
	// (exec 3<<EOF), which every later command inherits.
	shellFDs stmtCtx
	// aliasDef is the first alias definition, aliasExpand the first word
	// that turns alias expansion on (see strcode.go).
	aliasDef, aliasExpand *word
	// inherit is the command whose code string is being checked (bash -c,
	// eval): the code inherits its standard input and descriptors.
	inherit *call
	cwd     string // the directory a literal cd changed to, for the approval tiers' secret check
}

// source is a piece of shell code being walked: the command itself, or a
// string found to be code in it (bash -c '...', eval, an alias).
type source struct {
	text   string
	exact  bool // offsets in text map onto the command at base
	base   int
	anchor int      // offset in the command used for every position when !exact
	via    []string // wrappers every command in this source runs under
}

// off maps a position in the current source to an offset in the command.
func (c *checker) off(p syntax.Pos) int {
	if !c.src.exact {
		return c.src.anchor
	}
	return c.src.base + int(p.Offset())
}

// text returns the source text of a node.
func (c *checker) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src.text) || start > end {
		return ""
	}
	return c.src.text[start:end]
}

// pos converts an offset in the command into a Pos.
func (c *checker) pos(off int) Pos {
	if c.lines == nil {
		c.lines = []int{0}
		for i := 0; i < len(c.input); i++ {
			if c.input[i] == '\n' {
				c.lines = append(c.lines, i+1)
			}
		}
	}
	line := sort.Search(len(c.lines), func(i int) bool { return c.lines[i] > off }) - 1
	line = max(line, 0)
	return Pos{Offset: off, Line: line + 1, Col: off - c.lines[line] + 1}
}

type finding struct {
	d           Decision
	off         int
	interactive bool // Reason is the interactive message, built at the end
}

func (c *checker) add(v Verdict, rule, reason, word string, off int) {
	c.found = append(c.found, finding{d: Decision{Verdict: v, Rule: rule, Reason: reason, Word: word}, off: off})
}

// dynamic records a command or program text the policy cannot see: denied
// when only listed commands may run, asked about otherwise.
func (c *checker) dynamic(reason, word string, off int) {
	if c.p.exclusive() {
		c.add(Deny, ruleDynamic, reason+" Only commands the policy can check may run here.", word, off)
		return
	}
	c.add(Ask, ruleDynamic, reason, word, off)
}

// enter increases the nesting depth, and reports false (recording a denial
// that ends the walk) when it is too deep.
func (c *checker) enter() bool {
	if c.fatal != nil {
		return false
	}
	c.depth++
	if c.depth > maxDepth {
		c.tooDeep(c.src.anchor)
		return false
	}
	return true
}

func (c *checker) leave() { c.depth-- }

// deferred runs f for code that runs later, if at all.
func (c *checker) deferred(f func()) {
	c.later++
	defer func() { c.later-- }()
	f()
}

func (c *checker) tooDeep(off int) {
	if c.fatal == nil {
		c.fatal = &Decision{Verdict: Deny, Rule: ruleTooDeep, Pos: c.pos(off),
			Reason: fmt.Sprintf("The command nests subshells, substitutions, compound commands or shell code in strings (eval, bash -c) more than %d levels deep, or holds too much nested shell code, so the policy cannot analyse it. Write it as a flatter sequence of commands.", maxDepth)}
	}
}

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// parse parses code in the current source. On failure it records a denial
// and returns nil. what names the code in messages.
func (c *checker) parse(code, what string) (f *syntax.File) {
	c.budget -= len(code)
	if c.budget < 0 {
		c.tooDeep(c.src.anchor)
		return nil
	}
	if d, at := nestingDepth(code, maxDepth); d > maxDepth {
		c.tooDeep(c.mapOff(at))
		return nil
	}
	parser := parsers.Get().(*syntax.Parser)
	defer func() {
		if r := recover(); r != nil {
			f = nil
			c.add(Deny, ruleParseError, fmt.Sprintf("The shell parser failed on %s (%v), so it was not run. Rewrite it more simply.", what, r), "", c.src.anchor)
			return
		}
		parsers.Put(parser)
	}()
	if off, why, bad := divergence(code); bad {
		c.diverges(off, why, what)
		return nil
	}
	f, err := parser.Parse(strings.NewReader(code), "")
	if err != nil {
		c.parseError(err, what)
		return nil
	}
	if off, bad := commentDivergence(code); bad {
		c.diverges(off, "a comment ending in a backslash, which bash ends at the newline and the parser continues onto the next line", what)
		return nil
	}
	return f
}

// mapOff maps an offset in the current source to the command.
func (c *checker) mapOff(off int) int {
	if c.src.exact {
		return c.src.base + off
	}
	return c.src.anchor
}

func (c *checker) parseError(err error, what string) {
	var pos syntax.Pos
	var text string
	var pe syntax.ParseError
	var le syntax.LangError
	switch {
	case errors.As(err, &pe):
		pos, text = pe.Pos, pe.Text
	case errors.As(err, &le):
		pos = le.Pos
		text = strings.TrimPrefix(le.Error(), le.Pos.String()+": ")
	default:
		text = err.Error()
	}
	off := c.mapOff(int(pos.Offset()))
	where := pos.String()
	if c.src.exact {
		where = c.pos(off).String()
	}
	reason := fmt.Sprintf("Cannot parse %s: %s: %s. Fix the shell syntax (quotes, brackets, here-document terminators) and try again.", what, where, text)
	c.add(Deny, ruleParseError, reason, "", off)
}

// decide turns the findings into one Decision.
func (c *checker) decide() Decision {
	if c.fatal != nil {
		return *c.fatal
	}
	var deny, ask *finding
	for i := range c.found {
		f := &c.found[i]
		switch f.d.Verdict {
		case Allow:
		case Ask:
			if ask == nil || f.off < ask.off {
				ask = f
			}
		default: // Deny, and any invalid verdict: fail closed
			if deny == nil || f.off < deny.off {
				deny = f
			}
		}
	}
	best := deny
	if best == nil {
		best = ask
	}
	if best == nil {
		return Decision{Verdict: Allow, Rule: c.allowRule()}
	}
	d := best.d
	if best.interactive {
		d.Reason = msgInteractive(c.input)
	}
	if d.Pos == (Pos{}) {
		d.Pos = c.pos(best.off)
	}
	return d
}

func (c *checker) allowRule() string {
	switch {
	case c.custom:
		return ruleCustom
	case c.p.approval && c.ncmds > 0:
		return ruleReadOnly
	case c.p.allowREOn && c.ncmds > 0:
		return ruleAllowPattern
	case c.p.allowed != nil && c.ncmds > 0:
		return ruleAllowedCmds
	}
	return ruleDefault
}
