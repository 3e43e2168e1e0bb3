package textfmt

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEcho(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"dir", "dir"},
		{strings.Repeat("é", EchoMax), strings.Repeat("é", EchoMax)},
		{strings.Repeat("é", EchoMax+1), strings.Repeat("é", EchoMax-1) + "…"},
		{strings.Repeat("a", 10000), strings.Repeat("a", EchoMax-1) + "…"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
	}
	for _, tt := range tests {
		got := Echo(tt.in)
		if got != tt.want {
			t.Errorf("Echo(%.20q...) = %.20q..., want %.20q...", tt.in, got, tt.want)
		}
		if utf8.RuneCountInString(got) > EchoMax {
			t.Errorf("Echo gave %d code points", utf8.RuneCountInString(got))
		}
	}
}
