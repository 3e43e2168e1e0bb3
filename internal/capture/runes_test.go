package capture

import (
	"strings"
	"testing"
)

func TestBytesWithin(t *testing.T) {
	tests := []struct {
		name       string
		in         string
		keep       int // bytes the buffer keeps of each end
		head, tail int
		want       string
		omitted    int64
	}{
		{"fits", "abcdef", 64, 3, 3, "abcdef", 0},
		{"cut in memory", "abcdefgh", 64, 2, 3, "ab\n[... 3 bytes omitted ...]\nfgh", 3},
		{"cut characters, not bytes", strings.Repeat("é", 10), 64, 2, 3, "éé\n[... 10 bytes omitted ...]\nééé", 10},
		{"the buffer dropped", strings.Repeat("x", 100) + "END", 10, 4, 3, "xxxx\n[... 96 bytes omitted ...]\nEND", 96},
		{"no head", "abcdefgh", 64, 0, 2, "\n[... 6 bytes omitted ...]\ngh", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.keep, tt.keep, nil)
			_, _ = b.Write([]byte(tt.in))
			got, omitted := b.BytesWithin(tt.head, tt.tail)
			if string(got) != tt.want || omitted != tt.omitted {
				t.Fatalf("BytesWithin(%d, %d) = %q, %d; want %q, %d", tt.head, tt.tail, got, omitted, tt.want, tt.omitted)
			}
		})
	}
}
