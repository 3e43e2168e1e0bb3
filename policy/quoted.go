package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash reads single quotes as plain characters in a few places where the
// parser reads them as quotes: in the word of ${x:-word} (and -, +, :+, =,
// :=, ?, :?) inside double quotes or an unquoted here-document, and in
// arithmetic ($(( )), (( )), for (( )), $[ ], array subscripts, ${x:off}).
// There the command substitutions between the quotes run. The walker
// re-reads such text the way bash does, and judges what it finds.

// wordOps are the parameter-expansion operators whose word is expanded like
// the surrounding text, single quotes included.
var wordOps = map[syntax.ParExpOperator]bool{
	syntax.DefaultUnset: true, syntax.DefaultUnsetOrNull: true,
	syntax.AlternateUnset: true, syntax.AlternateUnsetOrNull: true,
	syntax.AssignUnset: true, syntax.AssignUnsetOrNull: true,
	syntax.ErrorUnset: true, syntax.ErrorUnsetOrNull: true,
}

// arithmTestOps are the [[ ]] operators that evaluate their operands as
// arithmetic expressions.
var arithmTestOps = map[syntax.BinTestOperator]bool{
	syntax.TsEql: true, syntax.TsNeq: true, syntax.TsLeq: true,
	syntax.TsGeq: true, syntax.TsLss: true, syntax.TsGtr: true,
}

// paramExp walks a parameter expansion; dq reports that it is inside double
// quotes or an unquoted here-document.
func (c *checker) paramExp(x *syntax.ParamExp, dq bool) {
	if x.NestedParam != nil {
		c.wordPart(x.NestedParam, dq)
	}
	if x.Index != nil {
		c.arithm(x.Index)
	}
	if x.Slice != nil {
		c.arithm(x.Slice.Offset)
		c.arithm(x.Slice.Length)
	}
	if x.Repl != nil {
		c.visitWordIn(x.Repl.Orig, dq)
		c.visitWordIn(x.Repl.With, dq)
	}
	if x.Exp == nil {
		return
	}
	if x.Exp.Op == syntax.OtherParamOps && strings.Contains(c.litText(x.Exp.Word), "P") {
		c.dynamic(fmt.Sprintf("%s expands the value of %s as a prompt, running the command substitutions it holds, which are only known at run time; the policy cannot check them.", pyRepr(short(c.text(x))), paramName(x)), c.text(x), c.off(x.Pos()))
	}
	if !dq || !wordOps[x.Exp.Op] || x.Exp.Word == nil {
		c.visitWordIn(x.Exp.Word, dq)
		return
	}
	for _, p := range x.Exp.Word.Parts {
		if sq, ok := p.(*syntax.SglQuoted); ok {
			c.literalQuotes(sq, "inside a double-quoted "+pyRepr(short(c.text(x))))
			continue
		}
		c.wordPart(p, dq)
	}
}

func paramName(x *syntax.ParamExp) string {
	if x.Param != nil {
		return x.Param.Value
	}
	return "the parameter"
}

// literalQuotes handles a single-quoted string that bash reads as plain
// characters: what it holds is expanded like double-quoted text. Where its
// text could end the enclosing construct for bash (a "}" or a double
// quote) or be read otherwise (a backslash or a backquote), the policy
// cannot be sure what bash sees, and denies.
func (c *checker) literalQuotes(sq *syntax.SglQuoted, where string) {
	if i := strings.IndexAny(sq.Value, "}\"\\`"); i >= 0 || sq.Dollar {
		c.add(Deny, ruleParseError, fmt.Sprintf("At %s, the single quotes %s are plain characters to bash, not quotes, so bash and the parser read %s differently and the policy cannot be sure what runs. Write the text without single quotes there (escape characters with a backslash instead).", c.pos(c.off(sq.Pos())), where, pyRepr(short(c.text(sq)))), c.text(sq), c.off(sq.Pos()))
		return
	}
	c.expandedText(sq.Value, c.quotedWord(sq), "quotes read as text")
}

// quotedWord locates the body of a single-quoted string.
func (c *checker) quotedWord(sq *syntax.SglQuoted) word {
	w := word{val: sq.Value, lit: true, off: c.off(sq.Pos())}
	if c.src.exact && !sq.Dollar {
		w.exact, w.valOff = true, w.off+1
	}
	return w
}

// expandedText checks text that bash expands like a double-quoted string:
// the command substitutions in it run.
func (c *checker) expandedText(text string, w word, via string) {
	if !strings.ContainsAny(text, "$`") {
		return
	}
	c.nestedDocument(text, w, via)
}

// litText returns the literal text of a word: its literal parts, quotes
// and escapes removed, with a space for each expansion.
func (c *checker) litText(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeDouble(x.Value))
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, dp := range x.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				} else {
					b.WriteByte(' ')
				}
			}
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// arithText checks a word of an arithmetic expression. Bash expands the
// whole expression like double-quoted text before evaluating it, so single
// quotes are plain characters there and the substitutions between them
// run; the text is re-read that way.
func (c *checker) arithText(w *syntax.Word) {
	for _, p := range w.Parts {
		if sq, ok := p.(*syntax.SglQuoted); ok && strings.ContainsAny(sq.Value, "$`") {
			c.expandedText(sq.Value, c.quotedWord(sq), "arithmetic")
		}
	}
}

// arithString checks a word whose value bash evaluates as an arithmetic
// expression ([[ x -eq y ]], [[ -v x ]], let, declare -i, printf -v, ...):
// the subscripts in it are expanded, so substitutions written in its
// literal text run.
func (c *checker) arithString(w *syntax.Word) {
	text := c.litText(w)
	if !strings.ContainsAny(text, "$`") {
		return
	}
	v := word{val: text, lit: true, off: c.off(w.Pos())}
	if ev, off := c.exactValue(w); ev {
		v.exact, v.valOff = true, off
	}
	c.expandedText(text, v, "arithmetic")
}
