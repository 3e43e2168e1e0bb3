//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap/toolset"
)

func runCall(conv, command string) ToolCall {
	args, _ := json.Marshal(map[string]string{"command": command})
	return ToolCall{Conversation: conv, Tool: toolset.RunCommand, Args: args}
}

// TestSessionContinuesAsNew: a session that continues as new every two
// calls keeps its sticky directories, job table and call count across
// runs, and calls go on reaching it.
func TestSessionContinuesAsNew(t *testing.T) {
	e := newEnv(t)
	ref := e.host("sess-can-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: SessionWorkflowID(ref), TaskQueue: ref.TaskQueue(), WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
	}, SessionWorkflowName, SessionInput{Workspace: ref, CallsPerRun: 2}); err != nil {
		t.Fatal(err)
	}
	bash := func(command string) ToolCall {
		args, _ := json.Marshal(map[string]string{"command": command})
		return ToolCall{Conversation: "c1", Tool: toolset.BashTool, Args: args}
	}
	calls := []ToolCall{
		bash("mkdir -p a/b && cd a/b"),
		{Conversation: "c1", Tool: toolset.StartCommand, Args: json.RawMessage(`{"command":"sleep 30"}`)},
		runCall("c2", "true"),
		runCall("c2", "true"),
		bash("pwd"),
	}
	var last ToolResult
	for i, call := range calls {
		res, err := CallSession(ctx, e.c, ref, call)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if res.IsError {
			t.Fatalf("call %d: %s", i, res.Text)
		}
		last = res
	}
	if !strings.Contains(last.Text, filepath.Join(ref.Path, "a", "b")) {
		t.Errorf("pwd after two continue-as-new: %q", last.Text)
	}
	st, err := SessionStatus(ctx, e.c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs < 3 || st.Calls != len(calls) || st.Cwd["c1"] != filepath.Join(ref.Path, "a", "b") || len(st.Jobs) != 1 || st.Jobs[0].Command != "sleep 30" {
		t.Fatalf("the state after %d calls at 2 per run: %+v", len(calls), st)
	}
	replaySession(t, e.c, ref) // the third run, which carried the state in
	stop, _ := json.Marshal(map[string]string{"command_id": st.Jobs[0].ID})
	if res, err := CallSession(ctx, e.c, ref, ToolCall{Conversation: "c1", Tool: toolset.StopCommand, Args: stop}); err != nil || res.IsError {
		t.Fatalf("stop: %v %+v", err, res)
	}
}

// TestSessionOrdersConversations: concurrent calls of one conversation
// run one at a time; calls of different conversations overlap.
func TestSessionOrdersConversations(t *testing.T) {
	e := newEnv(t)
	ref := e.host("sess-order-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := CallSession(ctx, e.c, ref, runCall("", "true")); err != nil { // the session starts
		t.Fatal(err)
	}
	// Each call writes "start" and, 300 ms later, "end" to the log of
	// its group: calls that run one at a time alternate.
	step := func(log string) string {
		return fmt.Sprintf("echo start >> %s; sleep 0.3; echo end >> %s", log, log)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 4 {
		for _, group := range []string{"same", "mixed"} {
			conv := "one"
			if group == "mixed" {
				conv = fmt.Sprintf("conv-%d", i)
			}
			wg.Go(func() {
				res, err := CallSession(ctx, e.c, ref, runCall(conv, step(filepath.Join(ref.Path, group))))
				if err == nil && res.IsError {
					err = fmt.Errorf("%s", res.Text)
				}
				errs <- err
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(ref.Path, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	if got, want := read("same"), strings.TrimSpace(strings.Repeat("start end ", 4)); got != want {
		t.Errorf("one conversation's calls overlapped: %s", got)
	}
	if got := read("mixed"); strings.Count(got, "start") != 4 || !strings.Contains(got, "start start") {
		t.Errorf("different conversations' calls ran one at a time: %s", got)
	}
	replaySession(t, e.c, ref)
}

// replaySession replays the history of the session workflow of ws's
// current run against the workflow code: a nondeterministic change to
// SessionWorkflow fails it.
func replaySession(t *testing.T, c client.Client, ws WorkspaceRef) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	iter := c.GetWorkflowHistory(ctx, SessionWorkflowID(ws), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var hist historypb.History
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	if len(hist.Events) < 3 {
		t.Fatalf("the session's history has %d events", len(hist.Events))
	}
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(SessionWorkflow, workflow.RegisterOptions{Name: SessionWorkflowName})
	if err := r.ReplayWorkflowHistory(nil, &hist); err != nil {
		t.Fatalf("replaying the session's %d events: %v", len(hist.Events), err)
	}
}
