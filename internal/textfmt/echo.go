package textfmt

import "unicode/utf8"

// EchoMax is how many code points of the model's own input (a directory,
// an ID, a timeout as typed) a message repeats: enough to recognise it,
// never a flood.
const EchoMax = 100

// Echo returns s for repeating inside a message: valid UTF-8, and, when
// it has more than EchoMax code points, its first EchoMax-1 followed by
// "…".
func Echo(s string) string {
	s = ValidUTF8(s)
	if utf8.RuneCountInString(s) <= EchoMax {
		return s
	}
	return firstRunes(s, EchoMax-1) + "…"
}
