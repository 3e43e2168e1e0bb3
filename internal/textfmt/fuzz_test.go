package textfmt

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func FuzzStripANSI(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b[1;31mred\x1b[0m", "\x1b]8;;http://x\x1b\\l\x1b]8;;\x07", "\x1bPq\x1b\\", "\x1b(B",
		"\x9b31m", "ě\x9b", "\x1b[1\n2m", "\x1b]0;t\x1b[m", "\x1b", "\xc4\x1b[m\x9bA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := StripANSI(in)
		if strings.IndexByte(out, esc) >= 0 {
			t.Fatalf("StripANSI(%q) = %q keeps an ESC", in, out)
		}
		if len(out) > len(in) {
			t.Fatalf("StripANSI(%q) = %q is longer than its input", in, out)
		}
		if again := StripANSI(out); again != out {
			t.Fatalf("StripANSI is not idempotent on %q: %q, then %q", in, out, again)
		}
		// Without ESC, only a 0x9B byte outside a valid character starts a
		// sequence; valid UTF-8 has none.
		noStrayC1 := utf8.ValidString(in) || strings.IndexByte(in, c1CSI) < 0
		if strings.IndexByte(in, esc) < 0 && noStrayC1 && out != in {
			t.Fatalf("StripANSI(%q) = %q changed a string without escapes", in, out)
		}
	})
}

func FuzzPyRepr(f *testing.F) {
	for _, s := range []string{"", "sleep 100", "it's", `a"b'c`, "tab\t\\", "\x00\x7f\u0085\u00a0", "\u200b\U000e0001😀", "\xff\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := PyRepr(in)
		if !utf8.ValidString(out) {
			t.Fatalf("PyRepr(%q) = %q is not valid UTF-8", in, out)
		}
		if len(out) < 2 || out[0] != out[len(out)-1] || (out[0] != '\'' && out[0] != '"') {
			t.Fatalf("PyRepr(%q) = %q is not quoted", in, out)
		}
		for _, r := range out {
			if r != ' ' && !unicode.IsPrint(r) {
				t.Fatalf("PyRepr(%q) = %q holds unprintable %U", in, out, r)
			}
		}
		if !utf8.ValidString(in) {
			return // \xNN could be a byte or a code point: no way back
		}
		back, err := unquotePython(out)
		if err != nil {
			t.Fatalf("PyRepr(%q) = %q: %v", in, out, err)
		}
		if back != in {
			t.Fatalf("PyRepr(%q) = %q reads back as %q", in, out, back)
		}
	})
}

// unquotePython reads a Python str literal as repr writes it.
func unquotePython(lit string) (string, error) {
	quote, body := lit[0], lit[1:len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == quote {
			return "", strconv.ErrSyntax // an unescaped quote ends the literal early
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(body) {
			return "", strconv.ErrSyntax
		}
		digits := 0
		switch body[i] {
		case '\\', '\'', '"':
			b.WriteByte(body[i])
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			digits = 2
		case 'u':
			digits = 4
		case 'U':
			digits = 8
		default:
			return "", strconv.ErrSyntax
		}
		if digits == 0 {
			continue
		}
		if i+1+digits > len(body) {
			return "", strconv.ErrSyntax
		}
		r, err := strconv.ParseUint(body[i+1:i+1+digits], 16, 32)
		if err != nil {
			return "", err
		}
		b.WriteRune(rune(r))
		i += digits
	}
	return b.String(), nil
}

func FuzzTruncate(f *testing.F) {
	f.Add(long, 50)
	f.Add(long, 46)
	f.Add("é日😀\xff", 2)
	f.Add(strings.Repeat("x", 200), 128)
	f.Fuzz(func(t *testing.T, s string, maxChars int) {
		maxChars %= 1 << 12
		count := utf8.RuneCountInString(s)
		for _, truncate := range []struct {
			name string
			fn   func(string, int) string
		}{{"TruncateTail", TruncateTail}, {"TruncateHeadTail", TruncateHeadTail}} {
			out := truncate.fn(s, maxChars)
			if maxChars <= 0 || count <= maxChars {
				if out != s {
					t.Fatalf("%s(%q, %d) = %q, want its input", truncate.name, s, maxChars, out)
				}
				continue
			}
			if n := utf8.RuneCountInString(out); n > maxChars {
				t.Fatalf("%s(%q, %d) = %q has %d runes", truncate.name, s, maxChars, out, n)
			}
			if truncate.name == "TruncateTail" {
				if !isTailTruncation(s, out) {
					t.Fatalf("TruncateTail(%q, %d) = %q is neither a suffix of its input nor a marker and a suffix", s, maxChars, out)
				}
				continue
			}
			if out == TruncateTail(s, maxChars) {
				continue // too small for the middle marker
			}
			if n := utf8.RuneCountInString(out); n != maxChars {
				t.Fatalf("TruncateHeadTail(%q, %d) = %q has %d runes, want exactly %d", s, maxChars, out, n, maxChars)
			}
			if !isHeadTailTruncation(s, out) {
				t.Fatalf("TruncateHeadTail(%q, %d) = %q is not a prefix, a marker and a suffix of its input", s, maxChars, out)
			}
		}
	})
}

// isTailTruncation reports whether out is a suffix of s, or TruncateTail's
// marker for N followed by the last N runes of s.
func isTailTruncation(s, out string) bool {
	if strings.HasSuffix(s, out) {
		return true
	}
	rest, ok := strings.CutPrefix(out, tailMarkerPrefix)
	if !ok {
		return false
	}
	digits, kept, ok := strings.Cut(rest, tailMarkerSuffix)
	n, err := strconv.Atoi(digits)
	return ok && err == nil && n == utf8.RuneCountInString(kept) && strings.HasSuffix(s, kept)
}

// isHeadTailTruncation reports whether out is a prefix of s, TruncateHeadTail's
// marker for the number of runes dropped, and a suffix of s.
func isHeadTailTruncation(s, out string) bool {
	// The marker is counted in the runes out has, so
	// omitted = runes(s) - runes(out) + len(marker), where the marker's
	// length depends on omitted's width.
	shorter := utf8.RuneCountInString(s) - utf8.RuneCountInString(out)
	omitted := -1
	for width := 1; width < 20; width++ {
		if n := shorter + len(middleMarkerPrefix) + width + len(middleMarkerSuffix); decimalWidth(n) == width {
			omitted = n
			break
		}
	}
	marker := middleMarkerPrefix + strconv.Itoa(omitted) + middleMarkerSuffix
	for from := 0; ; {
		i := strings.Index(out[from:], marker)
		if i < 0 {
			return false
		}
		i += from
		if strings.HasPrefix(s, out[:i]) && strings.HasSuffix(s, out[i+len(marker):]) {
			return true
		}
		from = i + 1
	}
}
