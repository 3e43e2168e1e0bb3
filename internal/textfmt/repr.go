package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PyRepr returns s quoted as Python's repr() quotes a str, for messages such
// as "Started background command: 'sleep 100'".
//
// It uses single quotes unless s contains ' and no ", then double quotes. It
// escapes the backslash and the chosen quote with a backslash; \t, \n and \r
// as themselves; other control characters below 0x20 and 0x7F as \xNN. Other
// characters are kept when [unicode.IsPrint] holds (Python's str.isprintable,
// up to differences between Unicode versions) and written as \xNN, \uNNNN or
// \UNNNNNNNN otherwise, in lower-case hex as Python does. Python strings
// cannot hold invalid UTF-8; PyRepr writes each invalid byte as \xNN.
func PyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	b := make([]byte, 0, len(s)+2)
	b = append(b, quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = appendHexEscape(b, 'x', rune(s[i]), 2)
			i++
			continue
		}
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r < 0x20 || r == 0x7f:
			b = appendHexEscape(b, 'x', r, 2)
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case unicode.IsPrint(r):
			b = utf8.AppendRune(b, r)
		case r <= 0xff:
			b = appendHexEscape(b, 'x', r, 2)
		case r <= 0xffff:
			b = appendHexEscape(b, 'u', r, 4)
		default:
			b = appendHexEscape(b, 'U', r, 8)
		}
	}
	b = append(b, quote)
	return string(b)
}

// appendHexEscape appends \ kind and r as digits lower-case hex digits.
func appendHexEscape(b []byte, kind byte, r rune, digits int) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '\\', kind)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b = append(b, hex[(r>>shift)&0xf])
	}
	return b
}
