package textfmt

import (
	"strings"
	"unicode/utf8"
)

// ValidUTF8 returns s with each maximal run of invalid UTF-8 bytes replaced by
// one U+FFFD, as strings.ToValidUTF8(s, "\uFFFD") does; "a\xff\xfeb" becomes
// "a\uFFFDb". (Python's errors="replace" would give one U+FFFD per invalid
// sequence instead.) It returns s without allocating when s is valid.
func ValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
