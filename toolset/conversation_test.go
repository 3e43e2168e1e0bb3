package toolset_test

import (
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// TestConversations: each conversation has its own bash session, carried
// across its calls, and lists only the jobs it started (any conversation
// reaches a job by ID); closing one ends its shell, and its ID then names
// a fresh conversation.
func TestConversations(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	a, b := ts.Conversation("a"), ts.Conversation("b")
	defer b.Close()
	if ts.Conversation("a") != a || a.ID() != "a" {
		t.Fatal("Conversation(id) does not return the same conversation")
	}
	call(t, a, toolset.BashTool, `{"command":"export WHO=alice; cd /"}`, toolset.Hooks{})
	call(t, b, toolset.BashTool, `{"command":"export WHO=bob"}`, toolset.Hooks{})
	if res := call(t, a, toolset.BashTool, `{"command":"echo $WHO; pwd"}`, toolset.Hooks{}); res.Text != "[stdout]\nalice\n/\n" {
		t.Errorf("conversation a's shell: %q", res.Text)
	}
	if res := call(t, b, toolset.BashTool, `{"command":"echo $WHO"}`, toolset.Hooks{}); res.Text != "[stdout]\nbob\n" {
		t.Errorf("conversation b's shell: %q", res.Text)
	}

	started := call(t, a, toolset.StartCommand, `{"command":"sleep 30"}`, toolset.Hooks{})
	id := started.Structured.(*jobs.StartResult).ID
	if res := call(t, a, toolset.ListCommands, `{}`, toolset.Hooks{}); !strings.Contains(res.Text, id) {
		t.Errorf("a does not list its job: %q", res.Text)
	}
	if res := call(t, b, toolset.ListCommands, `{}`, toolset.Hooks{}); strings.Contains(res.Text, id) {
		t.Errorf("b lists a's job: %q", res.Text)
	}
	if res := call(t, b, toolset.CheckCommand, `{"command_id":"`+id+`"}`, toolset.Hooks{}); res.IsError {
		t.Errorf("b cannot reach a's job by ID: %q", res.Text)
	}
	if res := call(t, b, toolset.StopCommand, `{"command_id":"`+id+`"}`, toolset.Hooks{}); res.IsError {
		t.Errorf("stop: %q", res.Text)
	}

	a.Close()
	if res := call(t, a, toolset.BashTool, `{"command":"echo $WHO"}`, toolset.Hooks{}); !res.IsError {
		t.Errorf("a closed conversation's bash still runs: %q", res.Text)
	}
	fresh := ts.Conversation("a")
	defer fresh.Close()
	if fresh == a {
		t.Fatal("a closed conversation's ID returns it again")
	}
	if res := call(t, fresh, toolset.BashTool, `{"command":"echo \"[$WHO]\""}`, toolset.Hooks{}); res.Text != "[stdout]\n[]\n" {
		t.Errorf("the new conversation a inherits the old shell: %q", res.Text)
	}
}

// TestNotices: a background command that finishes is told to the
// conversation that started it with its next result, in Notices, and to
// no other.
func TestNotices(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	a, b := ts.Conversation("a"), ts.Conversation("b")
	defer a.Close()
	defer b.Close()
	started := call(t, a, toolset.StartCommand, `{"command":"echo done-marker"}`, toolset.Hooks{})
	id := started.Structured.(*jobs.StartResult).ID
	// Wait in b, so a's next result is the first it gets after the end.
	if res := call(t, b, toolset.WaitCommand, `{"command_id":"`+id+`","timeout_seconds":30}`, toolset.Hooks{}); res.IsError {
		t.Fatal(res.Text)
	}
	var got string
	for range 100 { // the event may trail the wait by a moment
		if got = call(t, a, toolset.RunCommand, `{"command":"true"}`, toolset.Hooks{}).Notices; got != "" {
			break
		}
		call(t, a, toolset.RunCommand, `{"command":"sleep 0.05"}`, toolset.Hooks{})
	}
	if !strings.Contains(got, "(ID: "+id+")") || !strings.Contains(got, "done-marker") {
		t.Errorf("a's notices: %q", got)
	}
	if res := call(t, b, toolset.RunCommand, `{"command":"true"}`, toolset.Hooks{}); res.Notices != "" {
		t.Errorf("b got a's notice: %q", res.Notices)
	}
}
