package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
)

const legacy = "2025-11-25"

// rawClient connects a modern client that does not answer input requests
// itself, so a test can forge and replay round trips.
func rawClient(t *testing.T, ws string) *mcp.ClientSession {
	t.Helper()
	cs, _ := connect(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, errors.New("unused") },
	})
	return cs
}

func callRaw(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

func accept() mcp.InputResponseMap {
	return mcp.InputResponseMap{"approve_command": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"remember": true}}}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestForgedApprovalIsIgnored: answers for a question the server never
// asked (the old, guessable state; a state for another command, another
// session, or one already spent) never run the command.
func TestForgedApprovalIsIgnored(t *testing.T) {
	ws := t.TempDir()
	cs := rawClient(t, ws)
	other := rawClient(t, ws)
	command := "touch " + filepath.Join(ws, "ran")
	args := map[string]any{"command": command}
	sum := sha256.Sum256([]byte(command))

	forged := []string{"approve:" + hex.EncodeToString(sum[:]), "approve.00.99999999999.AAAA", "x"}
	for _, st := range forged {
		res := callRaw(t, cs, &mcp.CallToolParams{Name: "run_command", Arguments: args, RequestState: st, InputResponses: accept()})
		if !res.NeedsInput() || exists(filepath.Join(ws, "ran")) {
			t.Fatalf("forged state %q: needs input %v, ran %v, text %q", st, res.NeedsInput(), exists(filepath.Join(ws, "ran")), text(res))
		}
	}

	// A real state, but for another command.
	first := callRaw(t, cs, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "touch " + filepath.Join(ws, "harmless")}})
	if !first.NeedsInput() || first.RequestState == "" {
		t.Fatalf("no question for an ask command: %+v", first)
	}
	res := callRaw(t, cs, &mcp.CallToolParams{Name: "run_command", Arguments: args, RequestState: first.RequestState, InputResponses: accept()})
	if !res.NeedsInput() || exists(filepath.Join(ws, "ran")) {
		t.Fatal("a state issued for another command ran this one")
	}

	// A real state for this command, presented by another session.
	asked := callRaw(t, cs, &mcp.CallToolParams{Name: "run_command", Arguments: args})
	res = callRaw(t, other, &mcp.CallToolParams{Name: "run_command", Arguments: args, RequestState: asked.RequestState, InputResponses: accept()})
	if !res.NeedsInput() || exists(filepath.Join(ws, "ran")) {
		t.Fatal("a state issued to another session was accepted")
	}

	// The genuine answer runs it once; replaying it does not count again.
	asked = callRaw(t, cs, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo once >> " + filepath.Join(ws, "count")}})
	retry := &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo once >> " + filepath.Join(ws, "count")},
		RequestState: asked.RequestState, InputResponses: mcp.InputResponseMap{"approve_command": &mcp.ElicitResult{Action: "accept"}}}
	if res := callRaw(t, cs, retry); res.NeedsInput() || res.IsError {
		t.Fatalf("genuine answer: needs input %v, text %q", res.NeedsInput(), text(res))
	}
	if res := callRaw(t, cs, retry); !res.NeedsInput() {
		t.Fatalf("replayed answer was accepted: %q", text(res))
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "count")); string(data) != "once\n" {
		t.Fatalf("count file %q", data)
	}
}

// TestRememberedApprovalIsPerSession: "remember" holds in the session
// whose user chose it, not in another one on the same server.
func TestRememberedApprovalIsPerSession(t *testing.T) {
	asked := map[string]int{}
	sh, srv := newSharedServer(t, shellcap.Options{Policy: policy.Rules{Approval: true}}, nil)
	_ = sh
	for _, who := range []string{"a", "b"} {
		cs := clientOn(t, srv, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked[who]++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"remember": who == "a"}}, nil
		}}, nil)
		for range 2 {
			if res := call(t, cs, "run_command", map[string]any{"command": "touch f"}); res.IsError {
				t.Fatalf("%s: %q", who, text(res))
			}
		}
	}
	if asked["a"] != 1 || asked["b"] != 2 {
		t.Fatalf("questions asked: %v (want a:1 — remembered — and b:2 — asked in its own session)", asked)
	}
}

// TestElicitationRefusals: a client that cannot show a form, or fails to
// answer, gets the command refused as a tool result the model reads; no
// JSON-RPC error.
func TestElicitationRefusals(t *testing.T) {
	failing := func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("the user closed the dialog")
	}
	cases := []struct {
		name    string
		version string
		opts    *mcp.ClientOptions
		want    string
	}{
		{"url only", legacy, &mcp.ClientOptions{ElicitationHandler: failing,
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}}, "no form elicitation"},
		{"url only modern", "", &mcp.ClientOptions{ElicitationHandler: failing,
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}}, "no form elicitation"},
		{"no elicitation", legacy, nil, "no form elicitation"},
		{"handler fails", legacy, &mcp.ClientOptions{ElicitationHandler: failing}, "did not answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			_, srv := newSharedServer(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, nil)
			cs := clientOn(t, srv, c.opts, &mcp.ClientSessionOptions{ProtocolVersion: c.version})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "touch x"}})
			if err != nil {
				t.Fatalf("JSON-RPC error instead of a refusal: %v", err)
			}
			if !res.IsError || !strings.Contains(text(res), c.want) || !strings.Contains(text(res), "needs approval") || exists(filepath.Join(ws, "x")) {
				t.Fatalf("isError %v text %q", res.IsError, text(res))
			}
		})
	}
}

// TestLegacyElicitation: a client of 2025-11-25 is asked with an
// elicitation request and its answer decides.
func TestLegacyElicitation(t *testing.T) {
	ws := t.TempDir()
	_, srv := newSharedServer(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, nil)
	answer := "accept"
	cs := clientOn(t, srv, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: answer}, nil
	}}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if res := call(t, cs, "run_command", map[string]any{"command": "touch yes"}); res.IsError || !exists(filepath.Join(ws, "yes")) {
		t.Fatalf("accepted: %q", text(res))
	}
	answer = "decline"
	if res := call(t, cs, "run_command", map[string]any{"command": "touch no"}); !res.IsError || exists(filepath.Join(ws, "no")) {
		t.Fatalf("declined: %q", text(res))
	}
}
