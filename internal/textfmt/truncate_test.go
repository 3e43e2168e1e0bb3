package textfmt

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// long is 300 runes of repeating digits, so a suffix's first digit shows
// where it starts.
var long = strings.Repeat("0123456789", 30)

func TestTruncateTail(t *testing.T) {
	emoji := strings.Repeat("é", 100) + "日本語😀"
	tests := []struct {
		name     string
		s        string
		maxChars int
		want     string
	}{
		{"no limit", long, 0, long},
		{"negative limit", long, -1, long},
		{"short", "hello", 50, "hello"},
		{"empty", "", 5, ""},
		{"cap 50", long, 50, "[... output truncated, showing last 5 chars]\n56789"},
		{"cap 200", long, 200, "[... output truncated, showing last 153 chars]\n789" + strings.Repeat("0123456789", 15)},
		{"cap 100 takes the spare rune", long, 100, "[... output truncated, showing last 54 chars]\n6789" + strings.Repeat("0123456789", 5)},
		{"cap 101", long, 101, "[... output truncated, showing last 55 chars]\n56789" + strings.Repeat("0123456789", 5)},

		// Caps near the marker's length, 44 runes plus the digits.
		{"cap 1 is bare", long, 1, "9"},
		{"cap 10 is bare", long, 10, "0123456789"},
		{"cap 44 is bare", long, 44, long[256:]},
		{"cap 45 is bare", long, 45, long[255:]},
		{"cap 46 fits one rune", long, 46, "[... output truncated, showing last 1 chars]\n9"},
		{"cap 47", long, 47, "[... output truncated, showing last 2 chars]\n89"},
		{"cap 54", long, 54, "[... output truncated, showing last 9 chars]\n123456789"},
		{"cap 55 leaves one rune unused", long, 55, "[... output truncated, showing last 9 chars]\n123456789"},
		{"cap 56", long, 56, "[... output truncated, showing last 10 chars]\n0123456789"},

		{"exactly at cap", long[:50], 50, long[:50]},
		{"one over cap", long[:51], 50, "[... output truncated, showing last 5 chars]\n67890"},
		{"multi-byte at cap", emoji, 104, emoji},
		{"multi-byte one over", emoji, 103, "[... output truncated, showing last 57 chars]\n" + strings.Repeat("é", 53) + "日本語😀"},
		{"multi-byte cap 50", emoji, 50, "[... output truncated, showing last 5 chars]\né日本語😀"},
		{"multi-byte cap 46", emoji, 46, "[... output truncated, showing last 1 chars]\n😀"},
		{"multi-byte bare", emoji, 3, "本語😀"},
		{"invalid bytes count as one rune", "\xff\xfeabc", 4, "\xfeabc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TruncateTail(tt.s, tt.maxChars)
			if got != tt.want {
				t.Errorf("TruncateTail(%d runes, %d) =\n%q\nwant\n%q", utf8.RuneCountInString(tt.s), tt.maxChars, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); tt.maxChars > 0 && n > tt.maxChars {
				t.Errorf("result has %d runes, more than %d", n, tt.maxChars)
			}
		})
	}
}

func TestTruncateHeadTail(t *testing.T) {
	tests := []struct {
		name     string
		s        string
		maxChars int
		want     string
	}{
		{"no limit", long, 0, long},
		{"short", "hello", 5, "hello"},
		{"cap 100", long, 100, long[:35] + "\n[... 229 chars omitted ...]\n" + long[264:]},
		{"one over", long[:101], 100, long[:36] + "\n[... 29 chars omitted ...]\n" + long[65:101]},
		{"smallest cap with marker", long, 31, "0\n[... 298 chars omitted ...]\n9"},
		{"too small for marker", long, 30, TruncateTail(long, 30)},
		{"count crosses a power of ten", long[:200], 128, long[:49] + "\n[... 101 chars omitted ...]\n" + long[150:200]},
		{"multi-byte", strings.Repeat("é", 20) + strings.Repeat("日", 20), 32, "éé\n[... 36 chars omitted ...]\n日日"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TruncateHeadTail(tt.s, tt.maxChars)
			if got != tt.want {
				t.Errorf("TruncateHeadTail(%d runes, %d) =\n%q\nwant\n%q", utf8.RuneCountInString(tt.s), tt.maxChars, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); tt.maxChars > 0 && n > tt.maxChars {
				t.Errorf("result has %d runes, more than %d", n, tt.maxChars)
			}
		})
	}
}

// TestTruncateHeadTailExactLength checks that every cap with room for the
// marker is used to the last rune.
func TestTruncateHeadTailExactLength(t *testing.T) {
	s := strings.Repeat("aé日😀", 3000)
	for maxChars := 29; maxChars < utf8.RuneCountInString(s); maxChars += 7 {
		if n := utf8.RuneCountInString(TruncateHeadTail(s, maxChars)); n != maxChars {
			t.Fatalf("TruncateHeadTail(%d runes, %d) has %d runes", utf8.RuneCountInString(s), maxChars, n)
		}
	}
}

func TestDecimalWidth(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 99, 100, 12345, -1, -9, -10, -100} {
		if got, want := decimalWidth(n), len(strconv.Itoa(n)); got != want {
			t.Errorf("decimalWidth(%d) = %d, want %d", n, got, want)
		}
	}
}
