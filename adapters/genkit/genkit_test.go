package shellgenkit_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/shellcap/shellcap"
	shellgenkit "github.com/shellcap/shellcap/adapters/genkit"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// TestDefinitions: every tool of the toolset is a Genkit tool with the
// toolset's name, description and hand-written input schema.
func TestDefinitions(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	refs := h.tools.Refs()
	if len(refs) != len(h.ts.Tools()) {
		t.Fatalf("%d Genkit tools for %d toolset tools", len(refs), len(h.ts.Tools()))
	}
	for i, tool := range h.ts.Tools() {
		if refs[i].Name() != tool.Name {
			t.Errorf("tool %d is %q, want %q", i, refs[i].Name(), tool.Name)
		}
		def := genkit.LookupTool(h.g, tool.Name)
		if def == nil {
			t.Errorf("%s is not registered on the Genkit instance", tool.Name)
			continue
		}
		d := def.Definition()
		if d.Description != tool.Description {
			t.Errorf("%s description %q, want the toolset's", tool.Name, d.Description)
		}
		if !reflectEqualJSON(t, d.InputSchema, tool.InputSchema) {
			t.Errorf("%s input schema %v, want the toolset's %v", tool.Name, d.InputSchema, tool.InputSchema)
		}
	}
}

// TestCommandOutput: a run_command request goes through Genkit's tool
// dispatch; the model receives the toolset's text (output and exit code),
// not as an error, and ends the turn.
func TestCommandOutput(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	conv := h.ts.Conversation("output")
	defer conv.Close()
	args := `{"command":"echo out; echo err >&2; exit 3"}`
	resp := h.turn(conv, nil, "run it", nil,
		callTool(toolset.RunCommand, map[string]any{"command": "echo out; echo err >&2; exit 3"}),
		say("done"))
	if resp.Text() != "done" {
		t.Errorf("final text %q", resp.Text())
	}
	got := h.got(1)
	if len(got) != 1 {
		t.Fatalf("model received %d tool outputs, want 1", len(got))
	}
	want := h.direct(toolset.RunCommand, args).ModelText()
	if got[0].Text != want || got[0].IsError {
		t.Errorf("model received %+v, want text %q, not an error", got[0], want)
	}
	if !strings.Contains(got[0].Text, "out\n") || !strings.Contains(got[0].Text, "exit code: 3") {
		t.Errorf("text lacks the output or the exit code: %q", got[0].Text)
	}
}

// TestDenied: a command the policy denies is not run; the model receives
// the denial reason as an error output and the generation goes on.
func TestDenied(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{DeniedCommands: []string{"touch"}}})
	conv := h.ts.Conversation("denied")
	defer conv.Close()
	resp := h.turn(conv, nil, "touch it", nil,
		callTool(toolset.RunCommand, map[string]any{"command": "touch denied.txt"}),
		say("refused"))
	got := h.got(1)
	want := h.direct(toolset.RunCommand, `{"command":"touch denied.txt"}`)
	if len(got) != 1 || !got[0].IsError || got[0].Text != want.ModelText() {
		t.Fatalf("model received %+v, want the error %q", got, want.ModelText())
	}
	if !strings.Contains(got[0].Text, "touch") {
		t.Errorf("denial %q does not name the command", got[0].Text)
	}
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}
	if resp.Text() != "refused" {
		t.Errorf("final text %q", resp.Text())
	}
}

// TestToolsetError: arguments Genkit's schema check accepts but the toolset
// refuses (an unknown job ID) reach the model as the toolset's error text.
func TestToolsetError(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	conv := h.ts.Conversation("error")
	defer conv.Close()
	h.turn(conv, nil, "check", nil,
		callTool(toolset.CheckCommand, map[string]any{"command_id": "nope"}),
		say("ok"))
	got := h.got(1)
	want := h.direct(toolset.CheckCommand, `{"command_id":"nope"}`)
	if len(got) != 1 || !got[0].IsError || got[0].Text != want.ModelText() {
		t.Fatalf("model received %+v, want the error %q", got, want.ModelText())
	}
}

// TestInvalidArguments: arguments that do not match the schema reach the
// toolset, not Genkit's schema check: the model receives the toolset's one
// precise text as an error, nothing runs, and the generation goes on.
func TestInvalidArguments(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws})
	conv := h.ts.Conversation("invalid")
	defer conv.Close()
	for _, tc := range []struct {
		name string
		args map[string]any
		raw  string
	}{
		{"unknown argument", map[string]any{"cmd": "touch x.txt"}, `{"cmd":"touch x.txt"}`},
		{"wrong type", map[string]any{"command": 7}, `{"command":7}`},
		{"out of range", map[string]any{"command": "touch x.txt", "timeout_seconds": 0.0005}, `{"command":"touch x.txt","timeout_seconds":0.0005}`},
		{"no arguments", nil, `null`},
	} {
		resp := h.turn(conv, nil, "run", nil, callTool(toolset.RunCommand, tc.args), say("retry"))
		got := h.got(1)
		want := h.direct(toolset.RunCommand, tc.raw)
		if len(got) != 1 || !got[0].IsError || got[0].Text != want.ModelText() {
			t.Errorf("%s: model received %+v, want the error %q", tc.name, got, want.ModelText())
		}
		if resp.Text() != "retry" {
			t.Errorf("%s: final text %q", tc.name, resp.Text())
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Error("a command ran from invalid arguments")
	}
}

// TestApproval: a command the policy asks about interrupts the tool through
// Genkit's interrupt mechanism; restarting it with an approval runs it, with
// a refusal tells the model the user's reason, and without an answer ends
// the generation with an error and runs nothing.
func TestApproval(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
	conv := h.ts.Conversation("approval")
	defer conv.Close()

	// ask runs a turn whose tool call is interrupted and returns the
	// response and its one interrupt.
	ask := func(file string) (*ai.ModelResponse, *ai.Part) {
		t.Helper()
		resp := h.turn(conv, nil, "touch "+file, nil,
			callTool(toolset.RunCommand, map[string]any{"command": "touch " + file}))
		if resp.FinishReason != ai.FinishReasonInterrupted {
			t.Fatalf("finish reason %q, want interrupted", resp.FinishReason)
		}
		ints := resp.Interrupts()
		if len(ints) != 1 {
			t.Fatalf("%d interrupts, want 1", len(ints))
		}
		q, ok := shellgenkit.Question(ints[0])
		if !ok || q.Command != "touch "+file || q.Tool != toolset.RunCommand || q.Reason == "" {
			t.Fatalf("question %+v %v, want one about %q with the policy's reason", q, ok, "touch "+file)
		}
		if _, err := os.Stat(filepath.Join(ws, file)); err == nil {
			t.Fatal("the command ran before it was approved")
		}
		return resp, ints[0]
	}

	// approved
	{
		resp, p := ask("approved.txt")
		part, err := h.tools.Restart(p, toolset.Answer{Approved: true})
		if err != nil {
			t.Fatal(err)
		}
		resp = h.turn(conv, resp.History(), "", []ai.GenerateOption{ai.WithToolRestarts(part)}, say("made it"))
		got := h.got(0)
		if len(got) != 1 || got[0].IsError {
			t.Fatalf("model received %+v, want the command's result", got)
		}
		if _, err := os.Stat(filepath.Join(ws, "approved.txt")); err != nil {
			t.Errorf("the approved command did not run: %v", err)
		}
		if resp.Text() != "made it" {
			t.Errorf("final text %q", resp.Text())
		}
	}

	// declined
	{
		resp, p := ask("declined.txt")
		part, err := h.tools.Restart(p, toolset.Answer{Approved: false, Reason: "not in this repository"})
		if err != nil {
			t.Fatal(err)
		}
		h.turn(conv, resp.History(), "", []ai.GenerateOption{ai.WithToolRestarts(part)}, say("understood"))
		got := h.got(0)
		if len(got) != 1 || !got[0].IsError || !strings.Contains(got[0].Text, "not in this repository") {
			t.Fatalf("model received %+v, want a refusal with the user's reason", got)
		}
		if _, err := os.Stat(filepath.Join(ws, "declined.txt")); err == nil {
			t.Error("the declined command ran")
		}
	}

	// restart without an answer
	{
		resp, p := ask("unanswered.txt")
		part, err := h.tools.Tool(toolset.RunCommand).RestartWith(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.generate(conv, resp.History(), "", []ai.GenerateOption{ai.WithToolRestarts(part)}); err == nil {
			t.Error("a restart without an answer did not fail")
		}
		if _, err := os.Stat(filepath.Join(ws, "unanswered.txt")); err == nil {
			t.Error("a command restarted without an answer ran")
		}
	}
}

// TestNoApprover: without toolset.Approve in the Shell nobody can be asked,
// so a command that needs approval is refused with the policy's reason,
// never allowed.
func TestNoApprover(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true},
		Approve: func(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
			return shellcap.Approval{}, toolset.ErrNoApprover
		}})
	conv := h.ts.Conversation("noapprover")
	defer conv.Close()
	resp := h.turn(conv, nil, "touch", nil,
		callTool(toolset.RunCommand, map[string]any{"command": "touch x.txt"}),
		say("ok"))
	if resp.FinishReason == ai.FinishReasonInterrupted {
		t.Fatal("interrupted with no approver")
	}
	got := h.got(1)
	if len(got) != 1 || !got[0].IsError {
		t.Fatalf("model received %+v, want a refusal", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); err == nil {
		t.Error("the command ran without approval")
	}
}

var jobID = regexp.MustCompile(`ID: ([0-9a-f]{32})`)

// TestJobAcrossTurns: a job started in one turn is checked in a second and
// stopped in a third (which forgets it), each a genkit.Generate of its own over the history.
func TestJobAcrossTurns(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	conv := h.ts.Conversation("jobs")
	defer conv.Close()

	resp := h.turn(conv, nil, "start it", nil,
		callTool(toolset.StartCommand, map[string]any{"command": "echo started; sleep 60"}),
		say("started"))
	got := h.got(1)
	if len(got) != 1 || got[0].IsError {
		t.Fatalf("start_command gave %+v", got)
	}
	m := jobID.FindStringSubmatch(got[0].Text)
	if m == nil {
		t.Fatalf("no job ID in %q", got[0].Text)
	}
	id := m[1]

	resp = h.turn(conv, resp.History(), "is it running?", nil,
		callTool(toolset.ListCommands, map[string]any{}),
		callTool(toolset.CheckCommand, map[string]any{"command_id": id}),
		say("it runs"))
	if got := h.got(1); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Text, id) {
		t.Errorf("list_commands gave %+v, want the job %s", got, id)
	}
	if got := h.got(2); len(got) != 1 || got[0].IsError || !strings.Contains(strings.ToLower(got[0].Text), "running") {
		t.Errorf("check_command gave %+v, want a running job", got)
	}

	h.turn(conv, resp.History(), "stop it", nil,
		callTool(toolset.StopCommand, map[string]any{"command_id": id}),
		callTool(toolset.CheckCommand, map[string]any{"command_id": id}),
		say("stopped"))
	if got := h.got(1); len(got) != 1 || got[0].IsError || !strings.Contains(got[0].Text, "[stopped]") || !strings.Contains(got[0].Text, "started\n") {
		t.Errorf("stop_command gave %+v, want the job's output and [stopped]", got)
	}
	// A stopped job is forgotten.
	if got := h.got(2); len(got) != 1 || !got[0].IsError || !strings.Contains(got[0].Text, id) {
		t.Errorf("check_command after stop_command gave %+v, want an unknown ID", got)
	}
}

// TestBashSession: the bash tool's session (directory, variables) carries
// across turns of one conversation and is not seen by another.
func TestBashSession(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	conv := h.ts.Conversation("bash")
	defer conv.Close()
	resp := h.turn(conv, nil, "set up", nil,
		callTool(toolset.BashTool, map[string]any{"command": "cd /tmp && export GREETING=hello"}),
		say("set"))
	if got := h.got(1); len(got) != 1 || got[0].IsError {
		t.Fatalf("bash gave %+v", got)
	}
	h.turn(conv, resp.History(), "where?", nil,
		callTool(toolset.BashTool, map[string]any{"command": `echo "$PWD $GREETING"`}),
		say("there"))
	if got := h.got(1); len(got) != 1 || !strings.Contains(got[0].Text, "/tmp hello") {
		t.Errorf("second turn's bash gave %+v, want the first turn's state", got)
	}

	other := h.ts.Conversation("bash-other")
	defer other.Close()
	h.turn(other, nil, "where?", nil,
		callTool(toolset.BashTool, map[string]any{"command": `echo "[$GREETING]"`}),
		say("here"))
	if got := h.got(1); len(got) != 1 || !strings.Contains(got[0].Text, "[]") {
		t.Errorf("another conversation's bash gave %+v, want none of the first's state", got)
	}
}

// TestInterruptBesideAnotherCall: when the model asks for two commands at
// once and only one needs approval, the other runs once, before the
// interrupt; the resumed generation gives the model both results without
// running it again.
func TestInterruptBesideAnotherCall(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
	conv := h.ts.Conversation("two")
	defer conv.Close()
	two := func([]shellgenkit.Output) []*ai.Part {
		return []*ai.Part{
			ai.NewToolRequestPart(&ai.ToolRequest{Name: toolset.BashTool, Ref: "a", Input: map[string]any{"command": "RUNS=$((RUNS+1)); echo free"}}),
			ai.NewToolRequestPart(&ai.ToolRequest{Name: toolset.RunCommand, Ref: "b", Input: map[string]any{"command": "touch asked.txt"}}),
		}
	}
	resp := h.turn(conv, nil, "both", nil, two)
	ints := resp.Interrupts()
	if resp.FinishReason != ai.FinishReasonInterrupted || len(ints) != 1 {
		t.Fatalf("finish %q with %d interrupts, want interrupted with 1", resp.FinishReason, len(ints))
	}
	if q, _ := shellgenkit.Question(ints[0]); q.Command != "touch asked.txt" {
		t.Fatalf("question about %q", q.Command)
	}
	part, err := h.tools.Restart(ints[0], toolset.Answer{Approved: true})
	if err != nil {
		t.Fatal(err)
	}
	h.turn(conv, resp.History(), "", []ai.GenerateOption{ai.WithToolRestarts(part)}, say("both done"))
	got := h.got(0)
	if len(got) != 2 {
		t.Fatalf("model received %d outputs, want 2: %+v", len(got), got)
	}
	texts := got[0].Text + got[1].Text
	if !strings.Contains(texts, "free") || got[0].IsError || got[1].IsError {
		t.Errorf("model received %+v, want both results", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "asked.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	res, err := conv.Call(context.Background(), toolset.BashTool, []byte(`{"command":"echo runs=$RUNS"}`), toolset.Hooks{})
	if err != nil || !strings.Contains(res.Text, "runs=1\n") {
		t.Errorf("the command beside the interrupt ran %v times (%v), want once", res, err)
	}
}

// TestRemember: an approval the user asked to remember holds for the same
// command in later turns of the conversation, which no longer interrupt.
func TestRemember(t *testing.T) {
	ws := t.TempDir()
	h := newHarness(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
	conv := h.ts.Conversation("remember")
	defer conv.Close()
	touch := callTool(toolset.RunCommand, map[string]any{"command": "touch again.txt"})
	resp := h.turn(conv, nil, "touch", nil, touch)
	ints := resp.Interrupts()
	if len(ints) != 1 {
		t.Fatalf("%d interrupts, want 1", len(ints))
	}
	part, err := h.tools.Restart(ints[0], toolset.Answer{Approved: true, Remember: true})
	if err != nil {
		t.Fatal(err)
	}
	resp = h.turn(conv, resp.History(), "", []ai.GenerateOption{ai.WithToolRestarts(part)}, say("done"))
	resp = h.turn(conv, resp.History(), "again", nil, touch, say("done again"))
	if resp.FinishReason == ai.FinishReasonInterrupted {
		t.Fatal("a remembered approval was asked again")
	}
	if got := h.got(1); len(got) != 1 || got[0].IsError {
		t.Errorf("model received %+v, want the command's result", got)
	}
}

// TestStatelessConversation: a context without a conversation runs calls in
// the toolset's stateless conversation: the bash tool names the session it
// started, and a later turn reaches it by session_id.
func TestStatelessConversation(t *testing.T) {
	h := newHarness(t, shellcap.Options{})
	resp := h.turn(nil, nil, "set", nil,
		callTool(toolset.BashTool, map[string]any{"command": "export MARK=kept"}),
		say("set"))
	got := h.got(1)
	if len(got) != 1 || got[0].IsError {
		t.Fatalf("bash gave %+v", got)
	}
	m := regexp.MustCompile(`session_id[^0-9a-zA-Z]+([0-9a-zA-Z_-]+)`).FindStringSubmatch(got[0].Text)
	if m == nil {
		t.Fatalf("no session_id in %q", got[0].Text)
	}
	h.turn(nil, resp.History(), "get", nil,
		callTool(toolset.BashTool, map[string]any{"command": "echo $MARK", "session_id": m[1]}),
		say("got"))
	if got := h.got(1); len(got) != 1 || !strings.Contains(got[0].Text, "kept") {
		t.Errorf("bash in the named session gave %+v", got)
	}
}
