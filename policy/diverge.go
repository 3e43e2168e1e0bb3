package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The parser and bash disagree about a few byte sequences. Where they do,
// the syntax tree is not the program bash runs, so the policy denies the
// command with the construct and its position instead of judging a tree
// it cannot trust.
//
//   - A carriage return: bash reads it as an ordinary character of a word
//     ("x\r# ; rm -rf /" runs rm), the parser as a blank, and it drops one
//     before a newline, so comments, words and here-document delimiters
//     end in different places.
//   - The bytes \x01 and \x7f: bash marks quoted text with them internally,
//     and a word holding them can reach a program altered ($'\\\x01'
//     runs "\\\x01\x01"). Decoded from $'...', they make the word only known
//     at run time.
//   - A backslash that ends the code: bash keeps it as a character with
//     bash -c and drops it when reading a script or standard input, so the
//     last word (a program name, perhaps) depends on how the code reaches
//     bash.
//   - A comment ending in a backslash: bash ends the comment at the
//     newline, the parser joins the next line to it, hiding the command on
//     that line.

// divergence reports where code holds a construct the parser reads
// differently from bash, before parsing.
func divergence(code string) (int, string, bool) {
	if i := strings.IndexByte(code, '\r'); i >= 0 {
		return i, "a carriage return, which bash reads as part of a word and the parser as a blank or a line end", true
	}
	if i := strings.IndexAny(code, "\x01\x7f"); i >= 0 {
		return i, "a \\x01 or \\x7f byte, which bash uses internally to quote text and passes on altered in places", true
	}
	n := len(code) - len(strings.TrimRight(code, "\\"))
	if n%2 == 1 {
		return len(code) - 1, "a backslash at the very end, which bash keeps with bash -c and drops when it reads a script", true
	}
	return 0, "", false
}

// commentDivergence reports a comment that ends in a backslash before a
// newline, once code has parsed.
func commentDivergence(code string) (int, bool) {
	if !strings.Contains(code, "\\\n") {
		return 0, false
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(code), "")
	if err != nil {
		return 0, false
	}
	at, found := 0, false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found {
			return false
		}
		if cm, ok := n.(*syntax.Comment); ok && strings.HasSuffix(strings.TrimSuffix(cm.Text, "\n"), "\\") && strings.HasSuffix(cm.Text, "\n") {
			at, found = int(cm.Pos().Offset()), true
		}
		return true
	})
	return at, found
}

func (c *checker) diverges(off int, what, where string) {
	c.add(Deny, ruleParseError, fmt.Sprintf("Cannot be sure how bash reads %s: at %s it holds %s, so the policy cannot be sure what runs. Remove it and try again.", where, c.pos(c.mapOff(off)), what), "", c.mapOff(off))
}

// heredocDelimiter returns the delimiter bash compares the lines of a
// here-document with: the word after << with its quotes removed
// ($'...' decoded).
func heredocDelimiter(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			var skel strings.Builder
			v, _ := unescapeUnquoted(x.Value, &skel)
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(decodeANSIC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				}
			}
		}
	}
	return b.String()
}

// parserDelimiter returns the delimiter the parser compares the lines of
// a here-document with: backslashes are removed only outside quotes, and
// $'...' is not decoded.
func parserDelimiter(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(x.Value); i++ {
				if x.Value[i] == '\\' {
					i++
					if i >= len(x.Value) {
						break
					}
				}
				b.WriteByte(x.Value[i])
			}
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				}
			}
		}
	}
	return b.String()
}

// heredocEnds checks that bash and the parser end a here-document at the
// same line: that they agree on its delimiter. Where they do not ("<<$'E\x4fF'",
// <<"E\"F"), what the parser reads as text bash may run as commands.
func (c *checker) heredocEnds(r *syntax.Redirect) {
	if r.Word == nil {
		return
	}
	if bash, parser := heredocDelimiter(r.Word), parserDelimiter(r.Word); bash != parser {
		c.diverges(int(r.Word.Pos().Offset()), fmt.Sprintf("a here-document delimiter that bash reads as %s and the parser as %s (they would end the here-document at different lines)", pyRepr(bash), pyRepr(parser)), "the command")
	}
}

// arithParensBalanced reports whether the text between "((" and "))"
// balances its parentheses when they are counted the way bash counts them
// to find the end of an arithmetic command: quotes are honoured, but not
// ${...}. Where they do not balance ("(( ${x#(} ))"), bash reads the
// command as two nested subshells and runs what the parser took for an
// expression.
func arithParensBalanced(text string) bool {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return false
			}
			i += j + 1
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// arithCommandEnds checks that bash reads "(( ... ))" (or a for (( ... ))
// header) as arithmetic, as the parser did.
func (c *checker) arithCommandEnds(left, right syntax.Pos) {
	start, end := int(left.Offset())+2, int(right.Offset())
	if start < 0 || end > len(c.src.text) || start > end {
		return
	}
	if !arithParensBalanced(c.src.text[start:end]) {
		c.diverges(start-2, "an arithmetic command whose parentheses do not balance when counted as bash counts them (it then runs the text as commands in nested subshells)", "the command")
	}
}
