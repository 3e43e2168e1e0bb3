package textfmt

import "testing"

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 12: "12 bytes", 1023: "1023 bytes", 1024: "1 KiB", 1536: "1.5 KiB",
		64 << 20: "64 MiB", 3 << 30: "3 GiB", 1 << 40: "1 TiB",
	} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
