package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/textfmt"
)

// byteSize is a flag value such as 1024, 64K, 10MiB or 2G (powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
		{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1},
	} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (want e.g. 1024, 64K, 10MiB, 2G)", s)
	}
	return n * mult, nil
}

// minTimeout is the shortest timeout a --timeout flag accepts; shorter
// ones, which would round to no timeout at all, are refused.
const minTimeout = time.Millisecond

// timeoutFlag is a --timeout value: a duration (90s, 2m) or a number of
// seconds (1.5, 2e3). Zero means the default; a value that is not zero
// but shorter than minTimeout is refused rather than rounded to zero. The
// maximum is the Shell's, or the job Manager's, to state.
type timeoutFlag time.Duration

func (t *timeoutFlag) String() string { return time.Duration(*t).String() }
func (t *timeoutFlag) Type() string   { return "duration" }

func (t *timeoutFlag) Set(s string) error {
	d, err := parseTimeout(s)
	if err != nil {
		return err
	}
	*t = timeoutFlag(d)
	return nil
}

func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case math.IsNaN(secs) || math.IsInf(secs, 0) && err == nil:
			return 0, fmt.Errorf("%q is not a number of seconds", cutFlag(s))
		case secs == 0 && !zeroText(s):
			return 0, fmt.Errorf("%s is below the minimum of %s", cutFlag(s), textfmt.FormatSeconds(minTimeout))
		case secs > 0 && secs < minTimeout.Seconds():
			return 0, fmt.Errorf("%s is below the minimum of %s", cutFlag(s), textfmt.FormatSeconds(minTimeout))
		case math.Abs(secs*float64(time.Second)) >= math.MaxInt64:
			return 0, fmt.Errorf("%s is too large for a timeout", cutFlag(s))
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (want e.g. 90s, 2m or a number of seconds)", cutFlag(s))
	}
	if d == 0 && !zeroText(s) || d > 0 && d < minTimeout {
		return 0, fmt.Errorf("%s is below the minimum of %s", cutFlag(s), textfmt.FormatSeconds(minTimeout))
	}
	return d, nil
}

// zeroText reports whether s writes zero itself ("0", "0s", "0.0m"), as
// opposed to a tiny value that rounds to zero.
func zeroText(s string) bool {
	return strings.Trim(s, "0.+-smhunµ") == "" && !strings.ContainsAny(s, "123456789")
}

// cutFlag shortens a flag value repeated in a message to 100 characters.
func cutFlag(s string) string {
	if r := []rune(s); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return s
}
