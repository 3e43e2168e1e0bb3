package shellcap

import (
	"strconv"
	"testing"

	"github.com/shellcap/shellcap/policy"
)

func TestDecisionCache(t *testing.T) {
	p, err := policy.New(policy.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var c decisionCache
	for i := range 3 * maxCachedDecisions {
		cmd := "rm file" + strconv.Itoa(i%700)
		if got, want := c.check(p, cmd), p.Check(cmd); got != want {
			t.Fatalf("cached decision for %q = %+v, want %+v", cmd, got, want)
		}
		if len(c.m) > maxCachedDecisions {
			t.Fatalf("cache holds %d decisions, bound %d", len(c.m), maxCachedDecisions)
		}
	}
	if d := c.check(p, "ls"); !d.Allowed() {
		t.Fatalf("ls: %+v", d)
	}
}
