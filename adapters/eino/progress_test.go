package eino_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"

	shelleino "github.com/shellcap/shellcap/adapters/eino"
)

// waitForGoOn prints "first", waits (at most 20 s) for a file go-on that
// only the test creates on seeing "first" in the agent's events, and says
// whether it appeared while it ran.
const waitForGoOn = `echo first; for i in $(seq 400); do [ -e go-on ] && break; sleep 0.05; done; [ -e go-on ] && echo streamed || echo not-streamed`

// progressAgent is an agent whose tools send Progress events.
func progressAgent(t *testing.T, ws string, rules policy.Rules, streaming bool) (*agent, *toolset.Conversation) {
	t.Helper()
	ts := newToolset(t, shellcap.Options{Workspace: ws, Policy: rules})
	conv := ts.Conversation("progress")
	t.Cleanup(func() { conv.Close() })
	tools, err := shelleino.Tools(shelleino.Config{Toolset: ts, Conversation: conv, Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	return newAgent(t, agentConfig{tools: tools, streaming: streaming}), conv
}

// TestProgressReachesTheCallerWhileTheCommandRuns: with Config.Progress,
// a run_command's output reaches the caller of the agent's event stream
// (adk.Runner.Query) while the command runs, in both of Eino's modes, before
// the tool's result event; the model reads the toolset's text alone.
func TestProgressReachesTheCallerWhileTheCommandRuns(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "invoke", true: "stream"}[streaming]
		t.Run(name, func(t *testing.T) {
			ws := t.TempDir()
			a, _ := progressAgent(t, ws, policy.Rules{}, streaming)
			a.model.mu.Lock()
			a.model.steps = []step{callTools(toolset.RunCommand, `{"command":"`+waitForGoOn+`"}`), say("done")}
			a.model.mu.Unlock()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			iter := a.runner.Query(ctx, "run it")
			var order []string
			var streamed bytes.Buffer
			for {
				ev, ok := iter.Next()
				if !ok {
					break
				}
				if ev.Err != nil {
					t.Fatalf("agent event error: %v", ev.Err)
				}
				if ev.Output == nil {
					continue
				}
				if p, ok := ev.Output.CustomizedOutput.(*shelleino.Progress); ok {
					if p.ToolCallID != "call-0-run_command" || p.Tool != toolset.RunCommand || p.Stream != shellcap.Stdout {
						t.Errorf("progress event %+v", p)
					}
					if len(order) == 0 || order[len(order)-1] != "progress" {
						order = append(order, "progress")
					}
					streamed.Write(p.Data)
					if strings.Contains(streamed.String(), "first") {
						os.WriteFile(filepath.Join(ws, "go-on"), nil, 0o644)
					}
				}
				if mo := ev.Output.MessageOutput; mo != nil && mo.Role == schema.Tool {
					if _, err := mo.GetMessage(); err != nil {
						t.Fatal(err)
					}
					order = append(order, "result")
				}
			}
			if strings.Join(order, ",") != "progress,result" {
				t.Errorf("event order %v, want the progress before the tool's result", order)
			}
			if streamed.String() != "first\nstreamed\n" {
				t.Errorf("progress carried %q", streamed.String())
			}
			if got := a.model.lastToolResult(t); got != "[stdout]\nfirst\nstreamed\n" {
				t.Errorf("model read %q", got)
			}
		})
	}
}

// TestProgressSurvivesACheckpoint: Progress events are kept in the run's
// session, which Eino checkpoints when a later call of the run
// interrupts; the interrupt saves and resumes.
func TestProgressSurvivesACheckpoint(t *testing.T) {
	ws := t.TempDir()
	a, _ := progressAgent(t, ws, policy.Rules{Approval: true}, false)
	o := a.turn("cp", "list, then write",
		callTools(toolset.RunCommand, `{"command":"echo listed"}`),
		callTools(toolset.RunCommand, `{"command":"touch made.txt"}`))
	if len(o.interrupts) != 1 {
		t.Fatalf("want one interrupt, got %+v", o)
	}
	o = a.resume("cp", map[string]any{o.interrupts[0].ID: toolset.Answer{Approved: true}}, say("done"))
	if o.text != "done" || !exists(ws, "made.txt") {
		t.Errorf("resumed turn ended %+v; made.txt exists: %v", o, exists(ws, "made.txt"))
	}
}

// TestProgressLimit: one call sends at most ProgressLimit bytes, the last
// chunk marked Truncated; the model reads the toolset's bounded text.
func TestProgressLimit(t *testing.T) {
	a, _ := progressAgent(t, t.TempDir(), policy.Rules{}, false)
	a.model.mu.Lock()
	a.model.steps = []step{callTools(toolset.RunCommand, `{"command":"head -c 300000 /dev/zero | tr '\\0' x"}`), say("done")}
	a.model.mu.Unlock()
	iter := a.runner.Query(context.Background(), "run it")
	sent, truncated, after := 0, 0, 0
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Output == nil {
			continue
		}
		if p, ok := ev.Output.CustomizedOutput.(*shelleino.Progress); ok {
			if truncated > 0 {
				after++
			}
			sent += len(p.Data)
			if p.Truncated {
				truncated++
			}
		}
	}
	if sent != shelleino.ProgressLimit || truncated != 1 || after != 0 {
		t.Errorf("sent %d bytes (want %d), %d truncated chunks (want 1), %d after it", sent, shelleino.ProgressLimit, truncated, after)
	}
	if got := a.model.lastToolResult(t); len(got) >= 300000 {
		t.Errorf("the model read an uncut text of %d bytes", len(got))
	}
}

// TestProgressOutsideAnAgent: in a bare ToolsNode there is no agent event
// stream; the call runs and nothing panics.
func TestProgressOutsideAnAgent(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	tools, err := shelleino.Tools(shelleino.Config{Toolset: ts, Progress: true})
	if err != nil {
		t.Fatal(err)
	}
	node, err := compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	out, err := node.Invoke(context.Background(), schema.AssistantMessage("", []schema.ToolCall{{
		ID: "call-1", Function: schema.FunctionCall{Name: toolset.RunCommand, Arguments: `{"command":"echo bare"}`},
	}}))
	if err != nil || len(out) != 1 || out[0].Content != "[stdout]\nbare\n" {
		t.Errorf("bare ToolsNode: %v, %v", out, err)
	}
}
