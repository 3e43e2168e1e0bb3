package policy

import (
	"slices"
	"testing"
)

// TestZeroVerdictIsInvalid: a Decision nobody filled in never allows.
func TestZeroVerdictIsInvalid(t *testing.T) {
	var d Decision
	if d.Allowed() || d.Verdict.Valid() {
		t.Fatalf("zero Decision: Allowed=%v Valid=%v, want both false", d.Allowed(), d.Verdict.Valid())
	}
	if _, err := d.Verdict.MarshalText(); err == nil {
		t.Fatal("zero Verdict marshalled without error")
	}
	for _, v := range []Verdict{Allow, Ask, Deny} {
		if !v.Valid() {
			t.Errorf("%v not valid", v)
		}
	}
}

// TestCustomInvalidVerdictDenies: a custom rule that returns a verdict
// outside Allow/Ask/Deny (the zero one included) denies the command.
func TestCustomInvalidVerdictDenies(t *testing.T) {
	for _, v := range []Verdict{0, Deny + 1, -1} {
		p := mustNew(Rules{Custom: func(c Command) (Decision, bool) {
			return Decision{Verdict: v, Reason: "x"}, c.Name == "echo"
		}})
		d := p.Check("echo hi")
		if d.Verdict != Deny {
			t.Errorf("custom verdict %d: got %v (%s), want deny", int(v), d.Verdict, d.Reason)
		}
		if d := p.Check("ls"); d.Verdict != Allow {
			t.Errorf("custom verdict %d: ls got %v, want allow", int(v), d.Verdict)
		}
	}
}

// TestDefaultDeniedCommandsIsACopy: changing the returned list changes
// neither the next call's nor a policy built later.
func TestDefaultDeniedCommandsIsACopy(t *testing.T) {
	a := DefaultDeniedCommands()
	want := slices.Clone(a)
	a[0] = "ls"
	if b := DefaultDeniedCommands(); !slices.Equal(b, want) {
		t.Fatalf("DefaultDeniedCommands changed after a caller's write: %v", b)
	}
	if d := mustNew(Rules{}).Check("rm -rf x"); d.Verdict != Deny {
		t.Fatalf("rm under the default list: %v", d.Verdict)
	}
}
