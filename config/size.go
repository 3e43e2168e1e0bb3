package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// sizeUnits maps unit suffixes (compared case-insensitively) to bytes:
// IEC units are powers of 1024, SI units powers of 1000.
var sizeUnits = []struct {
	name string
	mult int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

var errSize = errors.New("invalid size")

// ParseSize parses a byte count: a whole number, optionally followed by a
// unit: B; KiB, MiB, GiB, TiB (powers of 1024, also written K, M, G, T as
// ulimit and docker do); KB, MB, GB, TB (powers of 1000). Units are not
// case-sensitive and may follow a space. A negative number (only without a
// unit) is accepted: some options give it a meaning.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	for _, u := range sizeUnits {
		if len(s) <= len(u.name) || !strings.EqualFold(s[len(s)-len(u.name):], u.name) {
			continue
		}
		digits := strings.TrimSpace(s[:len(s)-len(u.name)])
		n, err := strconv.ParseUint(digits, 10, 63)
		if err != nil || digits[0] == '+' {
			return 0, errSize
		}
		if n > math.MaxInt64/uint64(u.mult) {
			return 0, errSize
		}
		return int64(n) * u.mult, nil
	}
	return 0, errSize
}

// FormatSize writes n in the largest IEC unit that divides it exactly,
// "64MiB", or as a plain number.
func FormatSize(n int64) string {
	if n > 0 {
		for _, u := range []struct {
			name string
			mult int64
		}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if n%u.mult == 0 {
				return strconv.FormatInt(n/u.mult, 10) + u.name
			}
		}
	}
	return strconv.FormatInt(n, 10)
}

// formatDuration writes d without zero trailing units: "10m", "24h",
// "1h30m", "1.5s".
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, strconv.IntSize)
	return n, err == nil
}
