package policy

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// resolve computes what the shell would pass for w, without running
// anything: quotes and escapes are removed; a word holding an expansion, a
// substitution, or a glob or brace pattern is not literal, and its value is
// then the word as written. resolve does not visit the substitutions in w;
// visitWord does.
func (c *checker) resolve(w *syntax.Word) word {
	out := word{node: w, off: c.off(w.Pos()), lit: true, raw: c.text(w)}
	var val, skel strings.Builder
	prefixOpen := true
	dynamic := func() {
		out.lit = false
		prefixOpen = false
	}
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v, glob := unescapeUnquoted(p.Value, &skel)
			val.WriteString(v)
			if glob {
				if prefixOpen {
					out.prefix += v[:strings.IndexAny(v, "*?[")]
				}
				dynamic()
			} else if prefixOpen {
				out.prefix += v
			}
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = decodeANSIC(v)
				if strings.ContainsAny(v, "\x01\x7f") {
					// bash's own quoting bytes: it may pass the word on
					// altered (see diverge.go).
					dynamic()
				}
			}
			val.WriteString(v)
			skel.WriteByte('q')
			if prefixOpen {
				out.prefix += v
			}
		case *syntax.DblQuoted:
			skel.WriteByte('q')
			for _, dp := range p.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					v := unescapeDouble(l.Value)
					val.WriteString(v)
					if prefixOpen {
						out.prefix += v
					}
					continue
				}
				dynamic()
			}
		case *syntax.ProcSubst:
			if len(w.Parts) == 1 {
				out.procSu = true
			}
			dynamic()
			skel.WriteByte('d')
		default: // ParamExp, CmdSubst, ArithmExp, ExtGlob, BraceExp
			dynamic()
			skel.WriteByte('d')
		}
	}
	if out.lit && hasBraceExpansion(skel.String()) {
		out.lit = false
	}
	if out.lit {
		out.val = val.String()
		out.prefix = out.val
		out.exact, out.valOff = c.exactValue(w)
	} else {
		out.val = out.raw
	}
	return out
}

// exactValue reports whether the value of w maps byte for byte onto the
// checked text, and where it starts, so that code found inside it (bash -c
// '...') can be given exact positions.
func (c *checker) exactValue(w *syntax.Word) (bool, int) {
	if !c.src.exact || len(w.Parts) != 1 {
		return false, 0
	}
	start := int(w.Pos().Offset())
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if !strings.ContainsRune(p.Value, '\\') && len(p.Value) == int(p.End().Offset())-start {
			return true, c.src.base + start
		}
	case *syntax.SglQuoted:
		if !p.Dollar {
			return true, c.src.base + start + 1
		}
	case *syntax.DblQuoted:
		if p.Dollar {
			return false, 0
		}
		if len(p.Parts) == 0 {
			return true, c.src.base + start + 1
		}
		if l, ok := p.Parts[0].(*syntax.Lit); ok && len(p.Parts) == 1 && !strings.ContainsRune(l.Value, '\\') {
			return true, c.src.base + start + 1
		}
	}
	return false, 0
}

// unescapeUnquoted removes backslash escapes from an unquoted literal, and
// reports whether it holds an unescaped glob character. It appends the
// unescaped text to skel, with escaped characters replaced by 'q', for
// brace-expansion detection.
func unescapeUnquoted(s string, skel *strings.Builder) (string, bool) {
	glob := false
	bracket := -1
	if !strings.ContainsAny(s, `\*?[`) {
		skel.WriteString(s)
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' && i+1 < len(s) {
			i++
			b.WriteByte(s[i])
			skel.WriteByte('q')
			continue
		}
		switch ch {
		case '*', '?':
			glob = true
		case '[':
			if bracket < 0 {
				bracket = b.Len()
			}
		case ']':
			if bracket >= 0 {
				glob = true
			}
		}
		b.WriteByte(ch)
		skel.WriteByte(ch)
	}
	return b.String(), glob
}

// unescapeDouble removes the backslash escapes that are special inside
// double quotes.
func unescapeDouble(s string) string { return unescape(s, "$`\"\\") }

// unescapeHeredoc removes the backslash escapes that are special in the body
// of a here-document with an unquoted delimiter (as in double quotes, but a
// double quote is not special there).
func unescapeHeredoc(s string) string { return unescape(s, "$`\\") }

// unescape removes a backslash before any byte of special and a
// backslash-newline pair (a line continuation).
func unescape(s, special string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if s[i+1] == '\n' {
				i++
				continue
			}
			if strings.IndexByte(special, s[i+1]) >= 0 {
				i++
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hasBraceExpansion reports whether the unquoted skeleton of a word may
// hold a brace expansion such as {a,b} or {1..3}. Bash pairs braces in ways
// that are easy to get wrong ("{}{},}" expands to "{}}"), so any "," or
// ".." between the first "{" and the last "}" counts.
func hasBraceExpansion(skel string) bool {
	open := strings.IndexByte(skel, '{')
	if open < 0 {
		return false
	}
	end := strings.LastIndexByte(skel, '}')
	if end < open {
		return false
	}
	inner := skel[open+1 : end]
	return strings.Contains(inner, ",") || strings.Contains(inner, "..")
}

// decodeANSIC decodes the body of a $'...' string as bash does. Like bash,
// it stops at a NUL byte.
func decodeANSIC(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 >= len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			// Bash's control characters: "\c?" is DEL, "\c\\" one
			// control-backslash (both backslashes taken), anything else
			// its upper case masked to five bits.
			if i+1 < len(s) {
				i++
				ch := s[i]
				if ch == '\\' && i+1 < len(s) && s[i+1] == '\\' {
					i++
				}
				if ch == '?' {
					b.WriteByte(0x7f)
				} else {
					if 'a' <= ch && ch <= 'z' {
						ch -= 'a' - 'A'
					}
					b.WriteByte(ch & 0x1f)
				}
			} else {
				b.WriteString(`\c`)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			i = j - 1
			if e == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 32)
			i = j - 1
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	out := b.String()
	if i := strings.IndexByte(out, 0); i >= 0 {
		out = out[:i]
	}
	return out
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// written returns the word as written in the command, for Decision.Word.
func (w word) written() string {
	if w.raw != "" {
		return w.raw
	}
	return w.val
}
