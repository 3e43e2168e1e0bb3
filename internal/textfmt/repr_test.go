package textfmt

import "testing"

// The wants below are the outputs of Python 3.11's repr().
func TestPyRepr(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", `''`},
		{"command", "sleep 100", `'sleep 100'`},
		{"apostrophe", "it's", `"it's"`},
		{"both quotes", "a\"b'c", `'a"b\'c'`},
		{"double quotes", "say \"hi\"", `'say "hi"'`},
		{"tab", "tab\t", `'tab\t'`},
		{"backslash", "a\\b", `'a\\b'`},
		{"newline return tab", "\n\r\t", `'\n\r\t'`},
		{"controls", "\x00\x1b\x7f", `'\x00\x1b\x7f'`},
		{"vt ff", "\x0b\x0c", `'\x0b\x0c'`},
		{"lone apostrophe", "'", `"'"`},
		{"lone double quote", "\"", `'"'`},
		{"apostrophe then double quote", "'\"", `'\'"'`},
		{"C1 control", "\u0080", `'\x80'`},
		{"NEL", "\u0085", `'\x85'`},
		{"NBSP", "\u00a0", `'\xa0'`},
		{"soft hyphen", "\u00ad", `'\xad'`},
		{"latin-1 letter", "é", `'é'`},
		{"y diaeresis", "ÿ", `'ÿ'`},
		{"latin extended", "Ā", `'Ā'`},
		{"zero width space", "\u200b", `'\u200b'`},
		{"line separator", "\u2028", `'\u2028'`},
		{"ideographic space", "\u3000", `'\u3000'`},
		{"BOM", "\ufeff", `'\ufeff'`},
		{"private use", "\ue000", `'\ue000'`},
		{"emoji", "😀", `'😀'`},
		{"language tag", "\U000e0001", `'\U000e0001'`},
		{"max rune", "\U0010ffff", `'\U0010ffff'`},
		{"replacement char", "\ufffd", `'�'`},
		{"CJK", "日本語", `'日本語'`},
		{"shell command", "cd /tmp && ls -la | grep 'x'", `"cd /tmp && ls -la | grep 'x'"`},
		{"unassigned", "\u0378", `'\u0378'`},
		{"musical format char", "\U0001d173", `'\U0001d173'`},
		{"backslash and apostrophe", "it's a \\ path", `"it's a \\ path"`},
		{"escape sequence", "\x1b[31mred\x1b[0m", `'\x1b[31mred\x1b[0m'`},
		{"combining mark", "e\u0301", "'e\u0301'"},

		// Python strings cannot hold invalid UTF-8; each invalid byte is \xNN.
		{"invalid byte", "a\xffb", `'a\xffb'`},
		{"truncated character", "\xe2\x82", `'\xe2\x82'`},
		{"surrogate bytes", "\xed\xa0\x80", `'\xed\xa0\x80'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PyRepr(tt.in); got != tt.want {
				t.Errorf("PyRepr(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}
