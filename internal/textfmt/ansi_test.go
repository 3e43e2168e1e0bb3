package textfmt

import (
	"strings"
	"testing"
	"time"
)

func TestStripANSI(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"plain", "hello, world", "hello, world"},
		{"empty", "", ""},
		{"keeps whitespace and controls", "a\tb\r\nc\x07\x08", "a\tb\r\nc\x07\x08"},

		// CSI
		{"colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"256 colours", "\x1b[38;5;196mX\x1b[39m", "X"},
		{"true colour", "\x1b[38;2;255;0;0mX\x1b[m", "X"},
		{"cursor movement", "a\x1b[2Ab\x1b[10;20Hc\x1b[Kd\x1b[3D", "abcd"},
		{"private parameters", "\x1b[?25lhidden\x1b[?25h", "hidden"},
		{"alternate screen", "\x1b[?1049h\x1b[Hfull screen\x1b[?1049l", "full screen"},
		{"intermediate byte", "\x1b[2 qcursor", "cursor"},
		{"progress bar", "\r\x1b[K 50%\r\x1b[K100%\n", "\r 50%\r100%\n"},
		{"colour around whitespace", "\x1b[31ma\tb\r\n\x1b[0m", "a\tb\r\n"},
		{"8-bit CSI", "\x9b31mred\x9b0m", "red"},
		{"0x9B inside a character", "ě\xc4\x9b", "ěě"},
		{"0x9B after a broken character", "\xc4\x1b[m\x9b1mX", "\xc4X"},
		{"control inside CSI is kept", "\x1b[1\n2mX", "\nX"},
		{"DEL inside CSI is ignored", "\x1b[3\x7f1mX", "X"},
		{"ESC interrupts CSI", "\x1b[31\x1b[32mX", "X"},
		{"character interrupts CSI", "\x1b[31é", "é"},

		// OSC
		{"OSC 8 hyperlink", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"OSC 8 with BEL", "\x1b]8;id=1;http://x.test/?a=1\x07link\x1b]8;;\x07", "link"},
		{"window title", "\x1b]0;user@host: ~\x07prompt$ ", "prompt$ "},
		{"title with ST", "\x1b]2;title\x1b\\text", "text"},
		{"title with UTF-8", "\x1b]2;日本語 ě\x07text", "text"},
		{"ESC interrupts OSC", "\x1b]0;title\x1b[31mX", "X"},

		// DCS, SOS, PM, APC
		{"DCS", "\x1bPq#0;2;0;0;0#0~~@@\x1b\\after", "after"},
		{"BEL does not end DCS", "\x1bPdata\x07more\x1b\\X", "X"},
		{"APC", "\x1b_Gf=100;AAAA\x1b\\x", "x"},
		{"SOS and PM", "\x1bXsos\x1b\\a\x1b^pm\x1b\\b", "ab"},

		// Other escapes
		{"two-byte escapes", "\x1bMup\x1b7save\x1b8\x1bD\x1bE", "upsave"},
		{"keypad modes", "\x1b=\x1b>x", "x"},
		{"reset", "\x1bcclean", "clean"},
		{"charset selection", "\x1b(Bplain\x1b)0\x1b#8\x1b%G", "plain"},
		{"lone ST", "a\x1b\\b", "ab"},
		{"ESC before a control", "\x1b\nX", "\nX"},
		{"ESC before a character", "\x1bé", "é"},
		{"ESC ESC", "\x1b\x1b[31mX", "X"},
		{"ESC with intermediates interrupted", "\x1b( \nX", "\nX"},

		// Unterminated at the end
		{"lone ESC", "text\x1b", "text"},
		{"unterminated CSI", "text\x1b[31", "text"},
		{"unterminated 8-bit CSI", "text\x9b3", "text"},
		{"unterminated OSC keeps the text", "a\x1b]0;title", "a0;title"},
		{"OSC ending in ESC", "a\x1b]0;title\x1b", "a"},
		{"unterminated DCS keeps the text", "a\x1bPdata", "adata"},
		{"unterminated charset", "a\x1b(", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI(tt.in); got != tt.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripANSINoAllocation(t *testing.T) {
	for _, s := range []string{"", "plain text\n", "0x9B in a character: ě", strings.Repeat("x", 1<<16)} {
		if allocs := testing.AllocsPerRun(100, func() { StripANSI(s) }); allocs != 0 {
			t.Errorf("StripANSI(%.20q): %v allocations, want 0", s, allocs)
		}
	}
}

// TestStripANSILinear runs inputs that would take hours if any sequence were
// rescanned from its start.
func TestStripANSILinear(t *testing.T) {
	const n = 1 << 18
	for _, in := range []string{
		strings.Repeat("\x1b[", n),
		strings.Repeat("\x1b[1", n),
		strings.Repeat("\x1b]", n),
		"\x1b]" + strings.Repeat("x", n),
		strings.Repeat("\x1b[\n", n),
		strings.Repeat("\x9b", n),
		strings.Repeat("\x1b(", n),
		strings.Repeat("\x1bP\x1b", n),
	} {
		start := time.Now()
		out := StripANSI(in)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("StripANSI of %d bytes took %v", len(in), d)
		}
		if strings.IndexByte(out, esc) >= 0 {
			t.Errorf("output of %.20q... keeps an ESC", in)
		}
	}
}
