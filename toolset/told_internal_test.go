package toolset

import (
	"testing"

	"github.com/shellcap/shellcap/jobs"
)

// TestLateEventNotToldAgain: the Manager delivers a job's finished event
// on its own time, so it may arrive after a wait_command result already
// reported the job finished; the next result must not repeat it.
func TestLateEventNotToldAgain(t *testing.T) {
	ts := &Toolset{owners: map[string]*Conversation{}, unclaimed: map[string]string{}, told: map[string]bool{}}
	c := &Conversation{ts: ts, jobs: map[string]bool{}, approvals: map[string]bool{}}
	ts.owners["a1"], ts.owners["b2"] = c, c
	code := 3
	c.finish(&Result{}, "a1") // a wait_command result about a1
	ts.jobFinished(jobs.Event{ID: "a1", Command: "x", ExitCode: &code})
	ts.jobFinished(jobs.Event{ID: "b2", Command: "y", ExitCode: &code})
	r := c.finish(&Result{})
	if r.Notices == "" || !aboutAny(r.Notices, []string{"b2"}) || aboutAny(r.Notices, []string{"a1"}) {
		t.Fatalf("notices %q: want b2's only", r.Notices)
	}
}
