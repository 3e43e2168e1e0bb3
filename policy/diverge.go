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
//   - A comment ending in a backslash: bash ends the comment at the
//     newline, the parser joins the next line to it, hiding the command on
//     that line.

// divergence reports where code holds a construct the parser reads
// differently from bash, before parsing.
func divergence(code string) (int, string, bool) {
	if i := strings.IndexByte(code, '\r'); i >= 0 {
		return i, "a carriage return, which bash reads as part of a word and the parser as a blank or a line end", true
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
