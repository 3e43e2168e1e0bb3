package textfmt

import "testing"

func TestValidUTF8(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"ascii", "hello", "hello"},
		{"multi-byte", "é日😀", "é日😀"},
		{"encoded U+FFFD stays", "\uFFFD", "\uFFFD"},
		{"one invalid byte", "a\xffb", "a\uFFFDb"},
		{"a run is one U+FFFD", "a\xff\xfe\x80b", "a\uFFFDb"},
		{"two runs", "\xffa\xff", "\uFFFDa\uFFFD"},
		{"truncated character", "ab\xe2\x82", "ab\uFFFD"},
		{"surrogate", "\xed\xa0\x80x", "\uFFFDx"},
		{"overlong", "\xc0\xafx", "\uFFFDx"},
		{"split by valid text", "\xe2é\x82", "\uFFFDé\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidUTF8(tt.in); got != tt.want {
				t.Errorf("ValidUTF8(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidUTF8NoAllocation(t *testing.T) {
	s := "already valid: é日😀"
	if allocs := testing.AllocsPerRun(100, func() { ValidUTF8(s) }); allocs != 0 {
		t.Errorf("ValidUTF8 of valid text: %v allocations, want 0", allocs)
	}
}
