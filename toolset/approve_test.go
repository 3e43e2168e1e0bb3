package toolset_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// approvalToolset is a toolset whose policy asks about every command that
// writes (touch), in workspace ws.
func approvalToolset(t *testing.T) (*toolset.Toolset, string) {
	t.Helper()
	ws := t.TempDir()
	return newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, toolset.Options{}), ws
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// ran reports whether the command of res created file: for a background
// command, once it has finished.
func ran(t *testing.T, c *toolset.Conversation, tool string, res *toolset.Result, file string) bool {
	t.Helper()
	if started, ok := res.Structured.(*jobs.StartResult); ok && tool == toolset.StartCommand && started.ID != "" {
		w := call(t, c, toolset.WaitCommand, `{"command_id":"`+started.ID+`","timeout_seconds":30}`, toolset.Hooks{})
		if w.IsError {
			t.Fatalf("wait: %s", w.Text)
		}
	}
	return exists(file)
}

// TestSyncApproval: a host that answers synchronously (Hooks.Approve)
// decides: approved runs, declined is refused with the user's reason, an
// approver that fails or no approver at all is refused with the policy's
// reason, never silently allowed.
func TestSyncApproval(t *testing.T) {
	ts, ws := approvalToolset(t)
	conv := ts.Conversation("sync")
	defer conv.Close()
	answer := func(approved bool, reason string) func(context.Context, toolset.Question) (toolset.Answer, error) {
		return func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			if q.Tool == "" || q.Reason == "" || !strings.Contains(q.Message(), q.Command) {
				t.Errorf("question lacks its tool, reason or command: %+v", q)
			}
			return toolset.Answer{Command: q.Command, Approved: approved, Reason: reason}, nil
		}
	}
	for _, tc := range []struct {
		name       string
		hooks      toolset.Hooks
		runs       bool
		contain    string
		unanswered bool // refused with the policy's reason
	}{
		{"approved", toolset.Hooks{Approve: answer(true, "")}, true, "", false},
		{"declined", toolset.Hooks{Approve: answer(false, "not today")}, false, "The user did not approve this command. Reason: not today", false},
		{"approver fails", toolset.Hooks{Approve: func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, errors.New("the terminal is gone")
		}}, false, "could not be asked for (the terminal is gone)", true},
		{"no one to ask", toolset.Hooks{}, false, toolset.ErrNoApprover.Error(), true},
	} {
		for _, tool := range []string{toolset.RunCommand, toolset.BashTool, toolset.StartCommand, toolset.ShellTool} {
			file := filepath.Join(ws, tc.name+"-"+tool)
			args := `{"command":"touch '` + file + `'"}`
			q := call(t, conv, tool, args, toolset.Hooks{Interrupt: true}).Pending
			if q == nil {
				t.Fatalf("%s: no question", tool)
			}
			res := call(t, conv, tool, args, tc.hooks)
			if ran(t, conv, tool, res, file) != tc.runs || res.IsError == tc.runs || res.Pending != nil {
				t.Errorf("%s %s: ran %v, isError %v, pending %v: %s", tc.name, tool, exists(file), res.IsError, res.Pending, res.Text)
			}
			if !tc.runs && !strings.Contains(res.Text, tc.contain) {
				t.Errorf("%s %s: refusal %q does not say %q", tc.name, tool, res.Text, tc.contain)
			}
			if tc.unanswered && !strings.Contains(res.Text, q.Reason) {
				t.Errorf("%s %s: refusal %q does not give the policy's reason %q", tc.name, tool, res.Text, q.Reason)
			}
		}
	}
}

// TestInterruptApproval: an interrupt-style host (ADK confirmation, Eino
// and Genkit interrupts) gets the question as a pending result with
// nothing run; resuming with the answer runs exactly the command asked
// about, or refuses it with the user's reason; an answer for another
// command asks again; an answer counts once.
func TestInterruptApproval(t *testing.T) {
	ts, ws := approvalToolset(t)
	conv := ts.Conversation("interrupt")
	defer conv.Close()
	for _, tool := range []string{toolset.RunCommand, toolset.BashTool, toolset.StartCommand, toolset.ShellTool} {
		file := filepath.Join(ws, "approved-"+tool)
		args := `{"command":"touch '` + file + `'"}`
		first := call(t, conv, tool, args, toolset.Hooks{Interrupt: true})
		if first.Pending == nil || exists(file) || first.IsError {
			t.Fatalf("%s: first round: pending %v, ran %v, isError %v: %s", tool, first.Pending, exists(file), first.IsError, first.Text)
		}
		q := *first.Pending
		if q.Command != "touch '"+file+"'" || q.Tool != tool || q.Reason == "" {
			t.Errorf("%s: question %+v", tool, q)
		}

		// An answer about another command does not run this one: asked again.
		other := filepath.Join(ws, "other-"+tool)
		res := call(t, conv, tool, `{"command":"touch '`+other+`'"}`, toolset.Hooks{Interrupt: true, Answer: &toolset.Answer{Command: q.Command, Approved: true}})
		if res.Pending == nil || res.Pending.Command == q.Command || exists(other) {
			t.Errorf("%s: an answer for another command: pending %+v, ran %v", tool, res.Pending, exists(other))
		}

		res = call(t, conv, tool, args, toolset.Hooks{Interrupt: true, Answer: &toolset.Answer{Command: q.Command, Approved: true}})
		if res.Pending != nil || res.IsError || !ran(t, conv, tool, res, file) {
			t.Errorf("%s: resumed approved: pending %v, isError %v, ran %v: %s", tool, res.Pending, res.IsError, exists(file), res.Text)
		}

		declined := filepath.Join(ws, "declined-"+tool)
		dargs := `{"command":"touch '` + declined + `'"}`
		q2 := call(t, conv, tool, dargs, toolset.Hooks{Interrupt: true}).Pending
		if q2 == nil {
			t.Fatalf("%s: no question for the second command", tool)
		}
		res = call(t, conv, tool, dargs, toolset.Hooks{Interrupt: true, Answer: &toolset.Answer{Command: q2.Command, Reason: "use a temp dir"}})
		if res.Pending != nil || !res.IsError || exists(declined) || !strings.Contains(res.Text, "Reason: use a temp dir") {
			t.Errorf("%s: resumed declined: pending %v, isError %v, ran %v: %s", tool, res.Pending, res.IsError, exists(declined), res.Text)
		}
	}

	// One answer, one command: a command line that asks twice in a bash
	// session is asked about again once the answer is spent.
	twice := filepath.Join(ws, "twice")
	res := call(t, conv, toolset.RunCommand, `{"command":"touch '`+twice+`'"}`, toolset.Hooks{Answer: &toolset.Answer{Command: "touch '" + twice + "'", Approved: true}})
	if res.IsError || !exists(twice) {
		t.Fatalf("answer without Interrupt: %s", res.Text)
	}
}

// TestRememberedApproval: an answer the user asks to remember holds for
// the rest of the conversation, and only there.
func TestRememberedApproval(t *testing.T) {
	ts, ws := approvalToolset(t)
	a, b := ts.Conversation("a"), ts.Conversation("b")
	defer a.Close()
	defer b.Close()
	file := filepath.Join(ws, "f")
	args := `{"command":"touch '` + file + `'"}`
	q := call(t, a, toolset.RunCommand, args, toolset.Hooks{Interrupt: true}).Pending
	if q == nil {
		t.Fatal("no question")
	}
	if res := call(t, a, toolset.RunCommand, args, toolset.Hooks{Interrupt: true, Answer: &toolset.Answer{Command: q.Command, Approved: true, Remember: true}}); res.IsError {
		t.Fatal(res.Text)
	}
	if res := call(t, a, toolset.RunCommand, args, toolset.Hooks{Interrupt: true}); res.Pending != nil || res.IsError {
		t.Errorf("remembered answer not applied in its conversation: %+v", res)
	}
	if res := call(t, b, toolset.RunCommand, args, toolset.Hooks{Interrupt: true}); res.Pending == nil {
		t.Errorf("another conversation used the remembered answer: %s", res.Text)
	}
}
