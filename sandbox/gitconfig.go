package sandbox

import (
	"errors"
	"strings"
)

// gitVar is one variable of a git configuration file, its name as git
// canonicalises it: section and variable name lower-cased, the
// subsection kept as written ("includeif.gitdir:~/src/.path").
type gitVar struct {
	key, value string
}

// errGitConfig reports a configuration file git itself would refuse.
var errGitConfig = errors.New("bad git config syntax")

// parseGitConfig parses a git configuration file the way git's own config
// parser reads it: [section] and [section "subsection"] headers (and the
// old [section.subsection] form), variables with or without a value,
// values with double-quoted parts, backslash escapes and line
// continuations, and comments after # or ; outside quotes. It returns
// every variable in file order, so that callers can apply last-one-wins
// or collect every value. Input git would reject gives errGitConfig and
// the variables read until then.
func parseGitConfig(data string) ([]gitVar, error) {
	p := &gitParser{s: data}
	if strings.HasPrefix(p.s, "\xef\xbb\xbf") { // git skips a UTF-8 BOM
		p.i = 3
	}
	var out []gitVar
	section := ""
	for {
		c, ok := p.next()
		if !ok {
			return out, nil
		}
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			s, err := p.header()
			if err != nil {
				return out, err
			}
			section = s
		case isAlpha(c):
			if section == "" {
				return out, errGitConfig // a variable before any section
			}
			name := p.name(c)
			v, err := p.value()
			if err != nil {
				return out, err
			}
			out = append(out, gitVar{section + "." + name, v})
		default:
			return out, errGitConfig
		}
	}
}

type gitParser struct {
	s string
	i int
}

func (p *gitParser) next() (byte, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	c := p.s[p.i]
	p.i++
	return c, true
}

func (p *gitParser) peek() (byte, bool) {
	if p.i >= len(p.s) {
		return 0, false
	}
	return p.s[p.i], true
}

func (p *gitParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

// header reads a section header after its '['.
func (p *gitParser) header() (string, error) {
	var b strings.Builder
	for {
		c, ok := p.next()
		if !ok {
			return "", errGitConfig
		}
		switch {
		case c == ']':
			if b.Len() == 0 {
				return "", errGitConfig
			}
			return b.String(), nil
		case c == ' ' || c == '\t':
			if b.Len() == 0 {
				return "", errGitConfig
			}
			return p.subsection(b.String())
		case isAlnum(c) || c == '-' || c == '.':
			b.WriteByte(lower(c))
		default:
			return "", errGitConfig
		}
	}
}

// subsection reads `"name"]` after the blanks that follow a section name.
func (p *gitParser) subsection(section string) (string, error) {
	for {
		c, ok := p.next()
		if !ok {
			return "", errGitConfig
		}
		if c == ' ' || c == '\t' {
			continue
		}
		if c != '"' {
			return "", errGitConfig
		}
		break
	}
	var b strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return "", errGitConfig
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, ok = p.next(); !ok || c == '\n' {
				return "", errGitConfig
			}
		}
		b.WriteByte(c)
	}
	if c, ok := p.next(); !ok || c != ']' {
		return "", errGitConfig
	}
	return section + "." + b.String(), nil
}

// name reads a variable name that starts with c.
func (p *gitParser) name(c byte) string {
	var b strings.Builder
	b.WriteByte(lower(c))
	for {
		c, ok := p.peek()
		if !ok || !(isAlnum(c) || c == '-') {
			return b.String()
		}
		p.i++
		b.WriteByte(lower(c))
	}
}

// value reads what follows a variable name: nothing (the variable is
// true), or blanks, '=' and the value up to the end of its line.
func (p *gitParser) value() (string, error) {
	for {
		c, ok := p.peek()
		if !ok {
			return "", nil
		}
		switch c {
		case ' ', '\t', '\r':
			p.i++
			continue
		case '\n':
			p.i++
			return "", nil
		case '=':
			p.i++
			return p.valueText()
		}
		return "", errGitConfig
	}
}

// valueText reads a value after '=': leading blanks dropped, trailing
// blanks outside quotes dropped, quotes removed, escapes applied.
func (p *gitParser) valueText() (string, error) {
	var b strings.Builder
	quoted := false
	space := 0 // blanks seen outside quotes, not yet written
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quoted {
				return "", errGitConfig
			}
			return b.String(), nil
		}
		if !quoted && (c == ';' || c == '#') {
			p.skipLine()
			return b.String(), nil
		}
		if !quoted && (c == ' ' || c == '\t') {
			if b.Len() > 0 {
				space++
			}
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quoted = !quoted
		case '\\':
			c, ok = p.next()
			if !ok {
				return "", errGitConfig
			}
			switch c {
			case '\n':
				// a line continuation
			case '\r':
				if n, ok := p.peek(); ok && n == '\n' {
					p.i++
				} else {
					return "", errGitConfig
				}
			case 't':
				b.WriteByte('\t')
			case 'b':
				if s := b.String(); len(s) > 0 {
					b.Reset()
					b.WriteString(s[:len(s)-1])
				}
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(c)
			default:
				return "", errGitConfig
			}
		case '\r':
			if n, ok := p.peek(); ok && n == '\n' && !quoted {
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
