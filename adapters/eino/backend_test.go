package eino_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"

	shelleino "github.com/shellcap/shellcap/adapters/eino"
)

// newFSAgent is an agent with Eino's filesystem middleware over a
// shellcap Backend (in-memory files, commands on the Shell).
func newFSAgent(t *testing.T, ts *toolset.Toolset, conv *toolset.Conversation) *agent {
	t.Helper()
	b, err := shelleino.NewBackend(filesystem.NewInMemoryBackend(), shelleino.Config{Toolset: ts, Conversation: conv})
	if err != nil {
		t.Fatal(err)
	}
	mw, err := fsmw.NewMiddleware(context.Background(), &fsmw.Config{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	return newAgent(t, agentConfig{middlewares: []adk.AgentMiddleware{mw}})
}

// TestBackendExecute: Eino's filesystem middleware offers its execute
// tool on a shellcap Backend; the model receives shellcap's text and the
// middleware's exit code line, and a denial's reason.
func TestBackendExecute(t *testing.T) {
	ts := newToolset(t, shellcap.Options{Policy: policy.Rules{DenyPatterns: []string{`^curl `}}})
	conv := ts.Conversation("fs")
	defer conv.Close()
	a := newFSAgent(t, ts, conv)
	a.turn("1", "run", callTools("execute", `{"command":"echo from-execute; exit 2"}`, "execute", `{"command":"curl http://example.com"}`), say("done"))
	var names []string
	for _, ti := range a.model.tools {
		names = append(names, ti.Name)
	}
	if !slices.Contains(names, "execute") {
		t.Fatalf("the model was offered %v, no execute", names)
	}
	got := a.model.toolResults()
	mustContain(t, "execute", got["call-0-execute"], "[stdout]\nfrom-execute\n", "[exit code: 2]", "[Command failed with exit code 2]")
	mustContain(t, "denied execute", got["call-1-execute"], "Command 'curl http://example.com' is denied by the pattern '^curl '.")
}

// TestBackendExecuteApproval: execute asks through the same Eino
// interrupt, and the answer decides.
func TestBackendExecuteApproval(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  toolset.Answer
		created bool
		want    string
	}{
		{"approved", toolset.Answer{Approved: true}, true, "(no output)"},
		{"declined", toolset.Answer{Reason: "use the write_file tool"}, false, "use the write_file tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			ts := newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
			conv := ts.Conversation("fs-approval")
			defer conv.Close()
			a := newFSAgent(t, ts, conv)
			o := a.turn("cp", "make a file", callTools("execute", `{"command":"touch made.txt"}`))
			if len(o.interrupts) != 1 {
				t.Fatalf("want one interrupt, got %+v", o)
			}
			if q, ok := o.interrupts[0].Info.(toolset.Question); !ok || q.Command != "touch made.txt" {
				t.Fatalf("interrupt info %#v", o.interrupts[0].Info)
			}
			if exists(ws, "made.txt") {
				t.Fatal("ran before approval")
			}
			o = a.resume("cp", map[string]any{o.interrupts[0].ID: tc.answer}, say("done"))
			if o.text != "done" {
				t.Fatalf("resumed turn ended %+v", o)
			}
			mustContain(t, "execute", a.model.lastToolResult(t), tc.want)
			if exists(ws, "made.txt") != tc.created {
				t.Errorf("file created %v, want %v", !tc.created, tc.created)
			}
		})
	}
}
