package policy

// The shell parser recurses once per level of bracket nesting, so a crafted
// command of a few hundred kilobytes ("((((((...") would exhaust the stack,
// which in Go is a fatal error, not a panic. nestingDepth estimates that
// nesting in one linear pass before anything is parsed, and Check denies
// commands nested deeper than maxDepth.
//
// The estimate follows quotes, escapes, comments, here-documents,
// arithmetic and case patterns the way the parser does, so that brackets in
// text are not counted and a ")" that ends a case pattern does not close a
// substitution. Where it cannot tell, it errs towards counting deeper.

type scanKind uint8

const (
	scanRoot          scanKind = iota
	scanParen                  // ( $( <( >(  : code
	scanArith                  // (( $(( and ( inside them
	scanGroup                  // { at the start of a command
	scanParam                  // ${
	scanDouble                 // "
	scanBacktick               // `
	scanBracket                // [ : arithmetic index, or a word-local bracket in code
	scanCase                   // case ... esac: ")" ends a pattern
	scanHeredoc                // body of a here-document whose delimiter is unquoted
	scanDollarBracket          // $[ ... ]: arithmetic that "]" ends
)

type scanFrame struct {
	kind  scanKind
	end   int // scanHeredoc: offset where the body ends
	next  int // scanHeredoc: offset where reading resumes after the body
	outer int // scanHeredoc: hdocEnd of the enclosing here-document
}

type pendingHeredoc struct {
	delim  string
	quoted bool
	dash   bool
}

// nestingDepth returns the estimated nesting depth of code, or the first
// depth above limit and the offset where it was reached.
func nestingDepth(code string, limit int) (int, int) {
	s := scanner{code: code, limit: limit, stack: []scanFrame{{kind: scanRoot}}, cmdStart: true, hdocEnd: -1}
	s.run()
	return s.maxDepth, s.at
}

type scanner struct {
	code     string
	i        int
	limit    int
	stack    []scanFrame
	maxDepth int
	at       int
	pending  []pendingHeredoc
	cmdStart bool // a command word may start here
	hdocEnd  int  // end of the innermost here-document body being read, or -1
}

func (s *scanner) top() scanKind { return s.stack[len(s.stack)-1].kind }

func (s *scanner) push(k scanKind) bool {
	s.stack = append(s.stack, scanFrame{kind: k})
	if d := len(s.stack) - 1; d > s.maxDepth {
		s.maxDepth = d
		s.at = s.i
	}
	return s.maxDepth <= s.limit
}

func (s *scanner) pop() {
	if len(s.stack) > 1 {
		s.stack = s.stack[:len(s.stack)-1]
	}
}

// popWordBrackets drops the word-local brackets of code context.
func (s *scanner) popWordBrackets() {
	for s.top() == scanBracket && len(s.stack) > 1 && !isArith(s.stack[len(s.stack)-2].kind) && s.stack[len(s.stack)-2].kind != scanParam {
		s.pop()
	}
}

// closeTo pops frames until one of kind k is popped, when such a frame is
// reachable through brackets only; it reports whether it popped one.
func (s *scanner) closeTo(k scanKind) bool {
	n := len(s.stack) - 1
	for n > 0 && s.stack[n].kind == scanBracket && k != scanBracket {
		n--
	}
	if n > 0 && s.stack[n].kind == k {
		s.stack = s.stack[:n]
		return true
	}
	return false
}

func (s *scanner) peek(off int) byte {
	if s.i+off < len(s.code) {
		return s.code[s.i+off]
	}
	return 0
}

func (s *scanner) run() {
	for s.i < len(s.code) && s.maxDepth <= s.limit {
		if s.hdocEnd >= 0 && s.i >= s.hdocEnd {
			s.endHeredoc()
			continue
		}
		switch s.top() {
		case scanDouble, scanHeredoc:
			s.double()
		case scanArith, scanDollarBracket:
			s.arith()
		case scanParam:
			s.param()
		case scanBracket:
			if len(s.stack) > 1 && isArith(s.stack[len(s.stack)-2].kind) {
				s.arith()
			} else if len(s.stack) > 1 && s.stack[len(s.stack)-2].kind == scanParam {
				s.param()
			} else {
				s.codeChar()
			}
		default:
			s.codeChar()
		}
	}
}

// dollar handles $( $(( ${ $[ and $' at s.i; it reports whether it did.
func (s *scanner) dollar() bool {
	switch s.peek(1) {
	case '(':
		if s.peek(2) == '(' {
			s.i += 3
			s.push(scanArith)
			s.push(scanArith)
			return true
		}
		s.i += 2
		s.push(scanParen)
		s.cmdStart = true
		return true
	case '{':
		s.i += 2
		s.push(scanParam)
		return true
	case '[':
		s.i += 2
		s.push(scanDollarBracket)
		return true
	}
	return false
}

func (s *scanner) backtick() {
	s.i++
	if s.top() == scanBacktick {
		s.pop()
		return
	}
	s.push(scanBacktick)
	s.cmdStart = true
}

func (s *scanner) double() {
	switch c := s.code[s.i]; c {
	case '\\':
		s.i += 2
	case '"':
		s.i++
		if s.top() == scanDouble {
			s.pop()
		}
	case '`':
		s.backtick()
	case '$':
		if !s.dollar() {
			s.i++
		}
	default:
		s.i++
	}
}

func (s *scanner) arith() {
	switch c := s.code[s.i]; c {
	case '\\':
		s.i += 2
	case '(':
		s.i++
		s.push(scanArith)
	case ')':
		s.i++
		s.closeTo(scanArith)
	case '[':
		s.i++
		s.push(scanBracket)
	case ']':
		s.i++
		if s.top() == scanDollarBracket {
			s.pop()
		} else {
			s.closeTo(scanBracket)
		}
	case '\'':
		// The parser reads single quotes in arithmetic as quotes, and so
		// does bash when it finds the end of the expression.
		s.skipSingle()
	case '"':
		s.i++
		s.push(scanDouble)
	case '`':
		s.backtick()
	case '$':
		if !s.dollar() {
			s.i++
		}
	default:
		s.i++
	}
}

func isArith(k scanKind) bool { return k == scanArith || k == scanDollarBracket }

func (s *scanner) param() {
	switch c := s.code[s.i]; c {
	case '\\':
		s.i += 2
	case '}':
		s.i++
		s.closeTo(scanParam)
	case '[':
		s.i++
		s.push(scanBracket)
	case ']':
		s.i++
		s.closeTo(scanBracket)
	case '"':
		s.i++
		s.push(scanDouble)
	case '\'':
		if s.insideDouble() {
			s.i++
		} else {
			s.skipSingle()
		}
	case '`':
		s.backtick()
	case '$':
		if !s.dollar() {
			s.i++
		}
	default:
		s.i++
	}
}

func (s *scanner) insideDouble() bool {
	for j := len(s.stack) - 1; j >= 0; j-- {
		switch s.stack[j].kind {
		case scanDouble, scanHeredoc:
			return true
		case scanParam, scanBracket:
			continue
		}
		return false
	}
	return false
}

func (s *scanner) skipSingle() {
	j := s.i + 1
	for j < len(s.code) && s.code[j] != '\'' {
		j++
	}
	s.i = j + 1
}

func (s *scanner) skipANSIC() {
	j := s.i + 2
	for j < len(s.code) && s.code[j] != '\'' {
		if s.code[j] == '\\' {
			j++
		}
		j++
	}
	s.i = j + 1
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

func (s *scanner) wordStart() bool { return s.i == 0 || isMeta(s.code[s.i-1]) }

func (s *scanner) codeChar() {
	c := s.code[s.i]
	switch c {
	case '\\':
		s.i += 2
		s.cmdStart = false
	case '\'':
		s.skipSingle()
		s.cmdStart = false
	case '"':
		s.i++
		s.push(scanDouble)
		s.cmdStart = false
	case '`':
		s.backtick()
	case '$':
		if s.peek(1) == '\'' {
			s.skipANSIC()
		} else if !s.dollar() {
			s.i++
		}
		s.cmdStart = false
	case '(':
		if s.peek(1) == '(' && s.cmdStart {
			s.i += 2
			s.push(scanArith)
			s.push(scanArith)
			s.cmdStart = false
			return
		}
		s.i++
		s.push(scanParen)
		s.cmdStart = true
	case ')':
		s.i++
		s.popWordBrackets()
		if s.top() == scanCase {
			s.cmdStart = true
			return
		}
		s.closeTo(scanParen)
		s.cmdStart = false
	case '<', '>':
		if s.peek(1) == '(' {
			s.i += 2
			s.push(scanParen)
			s.cmdStart = true
			return
		}
		if c == '<' && s.peek(1) == '<' && s.peek(2) != '<' {
			s.heredocStart()
			return
		}
		s.i++
		if c == '<' && s.peek(0) == '<' { // <<<
			s.i += 2
		}
	case '{':
		s.i++
		if s.cmdStart && (s.i >= len(s.code) || isBlank(s.code[s.i]) || s.code[s.i] == '\n') {
			s.push(scanGroup)
			s.cmdStart = true
			return
		}
		s.cmdStart = false
	case '}':
		s.i++
		if s.cmdStart && s.top() == scanGroup {
			s.pop()
		}
		s.cmdStart = false
	case '[':
		s.i++
		s.push(scanBracket)
		s.cmdStart = false
	case ']':
		s.i++
		s.closeTo(scanBracket)
	case '#':
		if s.wordStart() {
			for s.i < len(s.code) && s.code[s.i] != '\n' {
				s.i++
			}
			return
		}
		s.i++
	case '\n':
		s.i++
		s.popWordBrackets()
		s.cmdStart = true
		s.heredocBodies()
	case ';', '&', '|':
		s.i++
		s.popWordBrackets()
		s.cmdStart = true
	case ' ', '\t':
		s.i++
		s.popWordBrackets()
	default:
		if s.wordStart() && c >= 'a' && c <= 'z' {
			s.keyword()
			return
		}
		s.i++
		s.cmdStart = false
	}
}

// keyword reads a lower-case word in code context and tracks the words that
// change how later characters are read.
func (s *scanner) keyword() {
	j := s.i
	for j < len(s.code) && s.code[j] >= 'a' && s.code[j] <= 'z' {
		j++
	}
	if j < len(s.code) && !isMeta(s.code[j]) {
		s.i = j
		s.cmdStart = false
		return
	}
	w := s.code[s.i:j]
	s.i = j
	switch w {
	case "case":
		s.push(scanCase)
		s.cmdStart = false
	case "esac":
		s.closeTo(scanCase)
		s.cmdStart = false
	case "if", "then", "else", "elif", "do", "while", "until", "time":
		s.cmdStart = true
	default:
		s.cmdStart = false
	}
}

// heredocStart reads "<<[-] delim" and queues the here-document.
func (s *scanner) heredocStart() {
	s.i += 2
	h := pendingHeredoc{}
	if s.peek(0) == '-' {
		h.dash = true
		s.i++
	}
	for s.i < len(s.code) && isBlank(s.code[s.i]) {
		s.i++
	}
	var delim []byte
	for s.i < len(s.code) && !isMeta(s.code[s.i]) {
		switch c := s.code[s.i]; c {
		case '\'', '"':
			h.quoted = true
			j := s.i + 1
			for j < len(s.code) && s.code[j] != c {
				j++
			}
			delim = append(delim, s.code[min(s.i+1, len(s.code)):min(j, len(s.code))]...)
			s.i = j + 1
		case '\\':
			h.quoted = true
			if s.i+1 < len(s.code) {
				delim = append(delim, s.code[s.i+1])
			}
			s.i += 2
		case '$':
			if s.peek(1) == '\'' || s.peek(1) == '"' {
				s.i++
				continue
			}
			delim = append(delim, c)
			s.i++
		default:
			delim = append(delim, c)
			s.i++
		}
	}
	h.delim = string(delim)
	s.pending = append(s.pending, h)
	s.cmdStart = false
}

// heredocBodies handles the bodies of the queued here-documents, which start
// at s.i (just after a newline), one after the other. Quoted bodies are
// skipped; unquoted ones become frames read like double-quoted text, each
// ending at its delimiter line, after which reading resumes at the next
// unquoted body or after the last delimiter line.
func (s *scanner) heredocBodies() {
	if len(s.pending) == 0 {
		return
	}
	type body struct{ start, end, after int }
	var bodies []body
	var unquoted []int
	j := s.i
	for _, h := range s.pending {
		b := body{start: j, end: len(s.code), after: len(s.code)}
		for j < len(s.code) {
			k := j
			for k < len(s.code) && s.code[k] != '\n' {
				k++
			}
			line := s.code[j:k]
			if h.dash {
				for len(line) > 0 && line[0] == '\t' {
					line = line[1:]
				}
			}
			next := min(k+1, len(s.code))
			if line == h.delim {
				b.end, b.after = j, next
				j = next
				break
			}
			j = next
		}
		if !h.quoted {
			unquoted = append(unquoted, len(bodies))
		}
		bodies = append(bodies, b)
	}
	s.pending = s.pending[:0]
	resume := j
	if len(unquoted) == 0 {
		s.i = resume
		return
	}
	// Push in reverse so that the first unquoted body is on top.
	for n := len(unquoted) - 1; n >= 0; n-- {
		b := bodies[unquoted[n]]
		next := resume
		if n+1 < len(unquoted) {
			next = bodies[unquoted[n+1]].start
		}
		s.stack = append(s.stack, scanFrame{kind: scanHeredoc, end: b.end, next: next, outer: s.hdocEnd})
		s.hdocEnd = b.end
		if d := len(s.stack) - 1; d > s.maxDepth {
			s.maxDepth = d
			s.at = s.i
		}
	}
	s.i = bodies[unquoted[0]].start
}

// endHeredoc pops the innermost here-document frame, and whatever is above
// it, and resumes reading after its body.
func (s *scanner) endHeredoc() {
	for len(s.stack) > 1 {
		f := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		if f.kind == scanHeredoc {
			s.hdocEnd = f.outer
			s.i = max(s.i, f.next)
			return
		}
	}
}
