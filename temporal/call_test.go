//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// callWorkflow makes the tool calls in order, each on its workspace.
func callWorkflow(ctx workflow.Context, ws WorkspaceRef, calls []ToolCall) ([]ToolResult, error) {
	ctx = WithCallOptions(ctx, CallOptions{RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 3}})
	var out []ToolResult
	for _, c := range calls {
		r, err := Call(ctx, ws, c)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func args(t *testing.T, v map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCallMatchesToolset: run_command through Call reads exactly as the
// toolset's own result for the same call, refusals included (a result the
// model reads, with IsError).
func TestCallMatchesToolset(t *testing.T) {
	e := newEnv(t, callWorkflow)
	ref := e.host("call-"+sanitize(t.Name()), nil)
	lib := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: lib, Approve: toolset.Approve})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ts, err := toolset.New(toolset.Options{Shell: sh})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	calls := []ToolCall{
		{Tool: toolset.RunCommand, Args: args(t, map[string]any{"command": "echo out; echo err >&2; exit 2"})},
		{Tool: toolset.RunCommand, Args: args(t, map[string]any{"command": "rm -rf build"})},
		{Tool: toolset.RunCommand, Args: args(t, map[string]any{"command": "echo hi", "timeout_seconds": -1})},
	}
	var got []ToolResult
	if err := e.start(ctx, callWorkflow, ref, calls).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	for i, c := range calls {
		want, err := ts.Call(ctx, ts.Stateless(), c.Tool, c.Args, toolset.Hooks{Interrupt: true})
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Text != want.Text || got[i].IsError != want.IsError || got[i].Host != ref.Host {
			t.Errorf("call %d: through Call %q (error %v), the toolset's %q (error %v)", i, got[i].Text, got[i].IsError, want.Text, want.IsError)
		}
	}

	err = e.start(ctx, callWorkflow, ref, []ToolCall{{Tool: "no_such_tool"}}).Get(ctx, &got)
	if app := applicationError(err, KindUnknownTool); app == nil || !app.NonRetryable() || !strings.Contains(app.Message(), toolset.RunCommand) || !errors.Is(refusalOf(app), toolset.ErrUnknownTool) {
		t.Fatalf("an unknown tool: %v, want a non-retryable %s listing the tools", err, KindUnknownTool)
	}
}

// TestCallApproval: a command the policy asks about is not run on the
// host: the call ends Pending with the question; called again with the
// user's answer it runs. Run, which no one can answer, refuses it.
func TestCallApproval(t *testing.T) {
	e := newEnv(t, callWorkflow, denialWorkflow)
	ref := e.host("approve-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	command := `eval "$(printf 'echo %s' approved)"`
	a := args(t, map[string]any{"command": command})
	var got []ToolResult
	if err := e.start(ctx, callWorkflow, ref, []ToolCall{{Tool: toolset.RunCommand, Args: a}}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got[0].Pending == nil || got[0].Pending.Command != command {
		t.Fatalf("a command needing approval: %+v, want it pending", got[0])
	}
	answer := &toolset.Answer{Command: command, Approved: true}
	got = nil
	if err := e.start(ctx, callWorkflow, ref, []ToolCall{{Tool: toolset.RunCommand, Args: a, Answer: answer}}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got[0].Pending != nil || got[0].IsError || !strings.Contains(got[0].Text, "approved") {
		t.Fatalf("the approved command: %+v", got[0])
	}
	var rep refusalReport
	if err := e.start(ctx, denialWorkflow, ref, Request{Command: command}).Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Kind != KindNotApproved {
		t.Fatalf("Run of a command needing approval: %+v, want %s", rep, KindNotApproved)
	}
}

// TestCallStartReattaches: a start_command whose first attempt fails after
// the job started re-attaches on the retry (toolset Hooks.JobID derived
// from the activity): one process.
func TestCallStartReattaches(t *testing.T) {
	counter := &attemptCounter{failFirst: ActivityCall}
	e := newEnv(t, callWorkflow)
	ref := e.host("callstart-"+sanitize(t.Name()), func(o *WorkerOptions) { o.Worker.Interceptors = append(o.Worker.Interceptors, counter) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []ToolResult
	calls := []ToolCall{{Conversation: "c", Tool: toolset.StartCommand, Args: args(t, map[string]any{"command": "echo started >> starts; sleep 300"})}}
	if err := e.start(ctx, callWorkflow, ref, calls).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	var started struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(got[0].Structured, &started); err != nil || started.ID == "" {
		t.Fatalf("start_command's structured result %s: %v", got[0].Structured, err)
	}
	if counter.count(ActivityCall) != 2 {
		t.Fatalf("%d attempts, want 2", counter.count(ActivityCall))
	}
	stop := []ToolCall{{Tool: toolset.StopCommand, Args: args(t, map[string]any{"command_id": started.ID})}}
	defer func() { _ = e.start(context.Background(), callWorkflow, ref, stop).Get(context.Background(), &got) }()
	waitFile(t, join(ref, "starts"))
	time.Sleep(200 * time.Millisecond)
	if n := lines(t, join(ref, "starts")); n != 1 {
		t.Fatalf("the command ran %d times, want once", n)
	}
	list := []ToolCall{{Conversation: "c", Tool: toolset.ListCommands, Args: args(t, map[string]any{})}}
	if err := e.start(ctx, callWorkflow, ref, list).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if strings.Count(got[0].Text, "sleep 300") != 1 {
		t.Fatalf("list_commands after the retried start:\n%s", got[0].Text)
	}
}

// TestCallBashCwdAfterRestart: the bash tool reports its directory; a new
// worker (a restart) takes a conversation's shell back to the directory
// the caller kept (ToolCall.Cwd), and refuses to run when it is gone.
func TestCallBashCwdAfterRestart(t *testing.T) {
	e := newEnv(t, callWorkflow)
	host := "cwd-" + sanitize(t.Name())
	ws := t.TempDir()
	ref := WorkspaceRef{Host: host, Path: ws}
	o := testWorkerOptions(host, ws, e.keyDir, 200*time.Millisecond)
	w1 := e.startWorker(o)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []ToolResult
	bash := func(cmd, cwd string) ToolCall {
		return ToolCall{Conversation: "conv", Tool: toolset.BashTool, Args: args(t, map[string]any{"command": cmd}), Cwd: cwd}
	}
	if err := e.start(ctx, callWorkflow, ref, []ToolCall{bash("mkdir -p sub/deeper && cd sub/deeper", "")}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	sticky := got[0].Cwd
	if sticky != filepath.Join(ws, "sub", "deeper") {
		t.Fatalf("the bash tool's directory after cd: %q (%+v)", sticky, got[0])
	}
	w1.Stop()

	w2 := e.startWorker(o)
	defer w2.Stop()
	if err := e.start(ctx, callWorkflow, ref, []ToolCall{bash("pwd", sticky)}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got[0].Text, sticky) || got[0].Cwd != sticky {
		t.Fatalf("pwd on the restarted worker: %q (cwd %q), want %s", got[0].Text, got[0].Cwd, sticky)
	}

	gone := []ToolCall{{Conversation: "conv2", Tool: toolset.BashTool, Args: args(t, map[string]any{"command": "echo ran"}), Cwd: filepath.Join(ws, "nowhere")}}
	if err := e.start(ctx, callWorkflow, ref, gone).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if !got[0].IsError || strings.Contains(got[0].Text, "\nran") || !strings.Contains(got[0].Text, "nowhere") {
		t.Fatalf("a kept directory that is gone: %+v, want the command refused", got[0])
	}
}
