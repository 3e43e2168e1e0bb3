package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestTimeoutFlag: --timeout of run and wait takes a duration or a number
// of seconds; zero is the default, a tiny value is refused as below the
// minimum instead of rounding to zero (the default), NaN, Inf and values
// no duration can hold are refused; the maximum is the Shell's to state
// ("at most 600s"). IDs repeated in messages are cut.
func TestTimeoutFlag(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "0s": 0, "0.0": 0, "1.5": 1500 * time.Millisecond, "90s": 90 * time.Second, "2m": 2 * time.Minute,
		"0.001": time.Millisecond, "1ms": time.Millisecond, "-1": -time.Second, "2e6": 2e6 * time.Second,
	} {
		if got, err := parseTimeout(in); err != nil || got != want {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"1e-300": "below the minimum of 0.001s", "1e-400": "below the minimum", "0.1ns": "below the minimum",
		"0.0000000001s": "below the minimum", "999us": "below the minimum", "0.0005": "below the minimum",
		"NaN": "not a number of seconds", "inf": "not a number of seconds", "1e400": "too large", "1e12": "too large",
		"abc": "not a duration", strings.Repeat("9", 500) + "x": "…",
	} {
		if _, err := parseTimeout(in); err == nil || !strings.Contains(err.Error(), want) || len(err.Error()) > 200 {
			t.Errorf("parseTimeout(%.40q): %v, want %q", in, err, want)
		}
	}

	ws := t.TempDir()
	for args, want := range map[string]string{
		"run --timeout 1e-300 -- echo ran":                "1e-300 is below the minimum of 0.001s",
		"run --timeout 2e6 -- echo ran":                   "at most 600s",
		"wait --timeout 0.1ns " + strings.Repeat("0", 32): "0.1ns is below the minimum",
		"check " + strings.Repeat("x", 500):               strings.Repeat("x", 99) + "…",
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{strings.Fields(args)[0], "--workspace", ws}, strings.Fields(args)[1:]...), strings.NewReader(""), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		if code == 0 || !strings.Contains(out, want) || strings.Contains(out, "ran") || strings.Contains(out, strings.Repeat("x", 100)) {
			t.Errorf("shellcap %.60s: status %d, %.300q; want %q", args, code, out, want)
		}
	}
}
