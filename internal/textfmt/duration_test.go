package textfmt

import (
	"testing"
	"time"
)

func TestFormatSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{500 * time.Millisecond, "0.5s"},
		{30 * time.Second, "30s"},
		{120 * time.Second, "120s"},
		{time.Millisecond, "0.001s"},
		{1250 * time.Millisecond, "1.25s"},
		{100 * time.Millisecond, "0.1s"},
		{333 * time.Millisecond, "0.333s"},
		{time.Nanosecond, "0.000000001s"},
		{90 * time.Minute, "5400s"},
		{-1500 * time.Millisecond, "-1.5s"},
	}
	for _, tt := range tests {
		if got := FormatSeconds(tt.d); got != tt.want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
