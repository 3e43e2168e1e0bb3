package adk_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/session"
	"google.golang.org/genai"
)

// requests collects the shellcap confirmations of evs.
func requests(evs []*session.Event) []adk.Request {
	var out []adk.Request
	for _, ev := range evs {
		out = append(out, adk.Requests(ev)...)
	}
	return out
}

func TestRequestsAndDecline(t *testing.T) {
	h := newHarness(t, policy.Rules{Approval: true}, adk.Options{})
	sid := h.newSession(t)
	evs := h.turnCalling(t, sid, toolset.RunCommand, `{"command":"touch x.txt"}`)
	asks := requests(evs)
	if len(asks) != 1 {
		t.Fatalf("got %d requests, want 1", len(asks))
	}
	want := adk.Confirmation{Tool: toolset.RunCommand, Command: "touch x.txt", Reason: asks[0].Confirmation.Reason}
	if asks[0].Confirmation != want || want.Reason == "" || asks[0].ID == "" {
		t.Errorf("request %+v, want %+v with a reason and an ID", asks[0], want)
	}

	// The same events as a persistent store gives them back: JSON.
	var stored []*session.Event
	for _, ev := range evs {
		b, err := json.Marshal(ev.Content)
		if err != nil {
			t.Fatal(err)
		}
		var c genai.Content
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		cp := *ev
		cp.Content = &c
		stored = append(stored, &cp)
	}
	if again := requests(stored); len(again) != 1 || again[0] != asks[0] {
		t.Errorf("from stored events: %+v, want %+v", again, asks)
	}

	h.turn(t, sid, asks[0].Decline("use a scratch dir"))
	if _, err := os.Stat(filepath.Join(h.ws, "x.txt")); err == nil {
		t.Fatal("declined command ran")
	}
	got := errorOf(t, h.model.lastResponse(t).Response)
	if want := "The user did not approve this command. Reason: use a scratch dir"; got != want {
		t.Errorf("model received %q, want %q", got, want)
	}
}

func TestRequestsLeavesOtherEventsOut(t *testing.T) {
	for _, ev := range []*session.Event{nil, {}, session.NewEvent(t.Context(), "inv")} {
		if got := adk.Requests(ev); got != nil {
			t.Errorf("Requests(%v) = %v", ev, got)
		}
	}
}
