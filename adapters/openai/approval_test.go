package openai_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// TestChatApproval is the approval round trip: a command the policy asks
// about goes to Options.Approve during the call; approved it runs, declined
// or with no approver it is refused with a reason the model reads.
func TestChatApproval(t *testing.T) {
	const command = "touch approved.txt"
	tests := []struct {
		name     string
		approve  func(ctx context.Context, q toolset.Question) (toolset.Answer, error)
		ran      bool
		contains string
	}{
		{"approved", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		}, true, "(no output)"},
		{"declined", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Reason: "not on a Friday"}, nil
		}, false, "not on a Friday"},
		{"approver fails", func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, errors.New("prompt closed")
		}, false, "prompt closed). Command 'touch' is not on the list of read-only commands"},
		{"no approver", nil, false, "Command 'touch' is not on the list of read-only commands, so it needs the user's approval."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newToolset(t, shellcap.Options{Policy: policy.Rules{Approval: true}})
			var mu sync.Mutex
			var asked []toolset.Question
			opts := shellopenai.Options{Toolset: ts}
			if tt.approve != nil {
				opts.Approve = func(ctx context.Context, q toolset.Question) (toolset.Answer, error) {
					mu.Lock()
					asked = append(asked, q)
					mu.Unlock()
					return tt.approve(ctx, q)
				}
			}
			ad := newAdapter(t, opts)
			client, m := newClient(t,
				func(map[string]any) string {
					return chatCall(t, toolset.RunCommand, `{"command":"`+command+`","timeout_seconds":null}`)
				},
				func(map[string]any) string { return chatDone(t) },
			)
			conv := ts.Conversation("thread")
			defer conv.Close()
			runChat(t, ad, conv, client)

			reply := toolReplies(m.requests()[1])["call_0"]
			_, err := os.Stat(filepath.Join(ts.Shell().Workspace(), "approved.txt"))
			if ran := err == nil; ran != tt.ran {
				t.Errorf("command ran: %v, want %v (reply %q)", ran, tt.ran, reply)
			}
			if !strings.Contains(reply, tt.contains) {
				t.Errorf("reply %q lacks %q", reply, tt.contains)
			}
			if tt.approve != nil && (len(asked) != 1 || asked[0].Command != command) {
				t.Errorf("approver asked %+v, want once about %q", asked, command)
			}
		})
	}
}

// TestChatDenied checks that the model reads the policy's reason for a
// denied command, and the command does not run.
func TestChatDenied(t *testing.T) {
	ts := newToolset(t, shellcap.Options{Policy: policy.Rules{DenyPatterns: []string{`^touch denied`}}})
	ad := newAdapter(t, shellopenai.Options{Toolset: ts})
	client, m := newClient(t,
		func(map[string]any) string {
			return chatCall(t, toolset.RunCommand, `{"command":"touch denied.txt","timeout_seconds":null}`)
		},
		func(map[string]any) string { return chatDone(t) },
	)
	conv := ts.Conversation("thread")
	defer conv.Close()
	runChat(t, ad, conv, client)
	reply := toolReplies(m.requests()[1])["call_0"]
	if !strings.Contains(reply, "^touch denied") {
		t.Errorf("reply %q does not name the deny pattern", reply)
	}
	if _, err := os.Stat(filepath.Join(ts.Shell().Workspace(), "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}
}

// TestResponsesShellApproval is the approval round trip through the
// Responses API's shell tool: the approved command runs, the declined one
// does not and its output has the user's reason and exit code 125.
func TestResponsesShellApproval(t *testing.T) {
	ts := newToolset(t, shellcap.Options{Policy: policy.Rules{Approval: true}})
	ad := newAdapter(t, shellopenai.Options{Toolset: ts, Approve: func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
		if q.Command == "touch yes.txt" {
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		}
		return toolset.Answer{Command: q.Command, Reason: "not that file"}, nil
	}})
	client, m := newClient(t,
		func(map[string]any) string {
			return response(t, shellCall("s1", 0, 0, "touch yes.txt", "touch no.txt"))
		},
		func(map[string]any) string { return response(t, message("done")) },
	)
	conv := ts.Conversation("thread")
	defer conv.Close()
	runResponses(t, ad, conv, client)

	out := shellOutputs(t, inputItems(t, m.requests()[1])["s1"])
	if len(out) != 2 {
		t.Fatalf("want 2 outputs, got %+v", out)
	}
	exitOutcome(t, out[0], 0)
	exitOutcome(t, out[1], shellopenai.NotRunExitCode)
	if !strings.Contains(out[1].Stderr, "not that file") {
		t.Errorf("declined: stderr %q lacks the user's reason", out[1].Stderr)
	}
	ws := ts.Shell().Workspace()
	if _, err := os.Stat(filepath.Join(ws, "yes.txt")); err != nil {
		t.Errorf("approved command did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "no.txt")); err == nil {
		t.Error("declined command ran")
	}
}
