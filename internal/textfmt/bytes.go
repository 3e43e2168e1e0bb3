package textfmt

import (
	"strconv"
	"strings"
)

// FormatBytes renders a byte count for people: "64 MiB", "1.5 KiB",
// "12 bytes".
func FormatBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	v, suffix := float64(n)/1024, "KiB"
	for _, next := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, suffix = v/1024, next
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + " " + suffix
}
