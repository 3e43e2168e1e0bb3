package mcpserver

import (
	"strings"
	"testing"
	"time"
)

// TestRoundTrips: a state redeems once, only for the session and command
// it was issued for, only before it expires, and not once altered.
func TestRoundTrips(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	rt := newRoundTrips()
	rt.now = func() time.Time { return now }
	st := rt.issue("s1", "touch x")
	other := newRoundTrips() // another process: another secret
	other.now = rt.now
	other.open = rt.open

	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	parts := strings.Split(st, ".")
	refused := map[string]struct{ state, session, command string }{
		"other session":   {st, "s2", "touch x"},
		"other command":   {st, "s1", "touch y"},
		"longer command":  {st, "s1", "touch x "},
		"altered mac":     {flip(st, len(st)-2), "s1", "touch x"},
		"altered nonce":   {flip(st, len("approve.")+1), "s1", "touch x"},
		"later expiry":    {parts[0] + "." + parts[1] + ".9999999999." + parts[3], "s1", "touch x"},
		"empty":           {"", "s1", "touch x"},
		"guessable":       {"approve:" + strings.Repeat("0", 64), "s1", "touch x"},
		"session in body": {st, "s1touch x", ""},
	}
	for name, c := range refused {
		if rt.redeem(c.state, c.session, c.command) {
			t.Errorf("%s: redeemed", name)
		}
	}
	if other.redeem(st, "s1", "touch x") {
		t.Error("a state redeemed under another process's secret")
	}
	if !rt.redeem(st, "s1", "touch x") {
		t.Fatal("the genuine state was refused")
	}
	if rt.redeem(st, "s1", "touch x") {
		t.Error("a state redeemed twice")
	}

	late := rt.issue("s1", "touch x")
	now = now.Add(roundTripTTL)
	if rt.redeem(late, "s1", "touch x") {
		t.Error("an expired state redeemed")
	}
	if len(rt.open) != 0 {
		t.Errorf("%d questions still open", len(rt.open))
	}
}

// TestRoundTripsBounded: open questions stay bounded; the oldest go.
func TestRoundTripsBounded(t *testing.T) {
	rt := newRoundTrips()
	first := rt.issue("s", "c")
	for range maxOpenRounds + 10 {
		rt.issue("s", "c")
	}
	if len(rt.open) > maxOpenRounds {
		t.Fatalf("%d open questions", len(rt.open))
	}
	if rt.redeem(first, "s", "c") {
		t.Fatal("the oldest question survived the bound")
	}
}
