//go:build linux

package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/session"
	"github.com/shellcap/shellcap/toolset"
)

// serveLocal serves a local MCP server over HTTP on loopback and returns
// its endpoint.
func serveLocal(tb testing.TB, opts mcpserver.Options) string {
	tb.Helper()
	srv, err := mcpserver.New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h, err := srv.HTTPHandler(mcpserver.HTTPOptions{Addr: ln.Addr().String()})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, ln, h); close(done) }()
	tb.Cleanup(func() { cancel(); <-done; srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// listedTools is the tools/list answer of an MCP client, each tool as
// JSON.
func listedTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// limitedWorker gives a worker non-default limits: the Shell's default and
// longest timeouts, the bash sessions' longest, and a foreground timeout
// after which run_command promotes.
func limitedWorker(o *WorkerOptions) {
	base := o.Shell
	o.Shell = func(ws string) shellcap.Options {
		so := base(ws)
		so.DefaultTimeout, so.MaxTimeout = 7*time.Second, 90*time.Second
		return so
	}
	o.Session = session.Options{MaxTimeout: 40 * time.Second}
	o.ForegroundTimeout = 500 * time.Millisecond
}

// TestFrontDoorDefinitions: the front door offers the tools of its
// default workspace's worker exactly as a local `shellcap serve` with that
// worker's settings offers them (tools/list, byte for byte: the limits in
// the schemas, the promotion's output schema); a call routed to a
// workspace whose worker offers no tools (read-only) gets that worker's
// refusal as an error result; a long run_command is promoted to a job on
// the worker (--foreground-timeout), recorded in the session's job table,
// and check_command later shows its end.
func TestFrontDoorDefinitions(t *testing.T) {
	e := newEnv(t)
	var opts WorkerOptions
	ref := e.host("fd-defs-"+sanitize(t.Name()), func(o *WorkerOptions) { limitedWorker(o); opts = *o })
	ro := e.host("fd-defs-ro-"+sanitize(t.Name()), func(o *WorkerOptions) {
		base := o.Shell
		o.Shell = func(ws string) shellcap.Options { so := base(ws); so.ReadOnly = true; return so }
	})
	endpoint, _ := e.frontDoor(ref, ro)

	twin := t.TempDir()
	so := opts.Shell(twin)
	so.Workspace = twin
	sh, err := shellcap.New(so)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	m, err := jobs.New(sh, jobs.Options{KeyDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	local := serveLocal(t, mcpserver.Options{Shell: sh, Jobs: m, Session: opts.Session, ForegroundTimeout: opts.ForegroundTimeout})

	cs := e.mcpClient(endpoint, "", legacyProtocol, nil)
	got, want := listedTools(t, cs), listedTools(t, e.mcpClient(local, "", legacyProtocol, nil))
	if len(got) != len(toolset.AllTools) || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the front door's tools:\n%s\nlocal serve's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(strings.Join(got, ""), "at most 90s") || !strings.Contains(strings.Join(got, ""), `"promoted"`) {
		t.Fatalf("the front door's tools do not state the worker's limits: %s", strings.Join(got, "\n"))
	}

	roClient := e.mcpClient(endpoint, ro.String(), legacyProtocol, nil)
	text, isErr, _ := callText(t, roClient, toolset.RunCommand, map[string]any{"command": "touch ran"})
	if !isErr || text != `Unknown tool "run_command": the workspace `+ro.String()+" offers no tools (it is read-only)." {
		t.Fatalf("run_command routed to a read-only workspace: %q (error %v)", text, isErr)
	}

	text, isErr, res := callText(t, cs, toolset.RunCommand, map[string]any{"command": "sleep 2; echo done"})
	var promoted struct {
		Promoted bool   `json:"promoted"`
		ID       string `json:"id"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &promoted); err != nil || isErr || !promoted.Promoted || !strings.Contains(text, promoted.ID) || !strings.Contains(text, "[status: running]") {
		t.Fatalf("a long run_command: %q %s: want it promoted to a job", text, raw)
	}
	st, err := SessionStatus(context.Background(), e.c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Jobs) != 1 || st.Jobs[0].ID != promoted.ID || st.Jobs[0].Tool != toolset.RunCommand || st.Jobs[0].Status != "running" || st.Jobs[0].Command != "sleep 2; echo done" {
		t.Fatalf("the job table after the promotion: %+v", st.Jobs)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		text, isErr, _ = callText(t, cs, toolset.CheckCommand, map[string]any{"command_id": promoted.ID})
		if isErr || strings.Contains(text, "[status: finished]") || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if isErr || !strings.Contains(text, "done") || !strings.Contains(text, "[status: finished]") {
		t.Fatalf("check_command of the promoted job: %q", text)
	}
	if st, err = SessionStatus(context.Background(), e.c, ref); err != nil || st.Jobs[0].Status != "finished" {
		t.Errorf("the job table after check_command: %+v, %v", st.Jobs, err)
	}
	replaySession(t, e.c, ref)
}

// TestFrontDoorDescribeFallback: a front door whose default workspace's
// host has no worker waits DescribeWait, logs a warning, and offers every
// tool with the usual definitions.
func TestFrontDoorDescribeFallback(t *testing.T) {
	e := newEnv(t)
	var logs bytes.Buffer
	ws := WorkspaceRef{Host: "nobody-" + sanitize(t.Name()), Path: "/srv/none"}
	began := time.Now()
	fd, err := NewFrontDoor(e.c, FrontDoorOptions{Workspaces: []WorkspaceRef{ws}, DescribeWait: time.Second, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	if fd.Definitions() != nil {
		t.Fatalf("definitions without a worker: %v", fd.Definitions())
	}
	if !strings.Contains(logs.String(), "did not describe its tools") || !strings.Contains(logs.String(), ws.TaskQueue()) {
		t.Fatalf("the front door's log: %q", logs.String())
	}
	if took < time.Second {
		t.Errorf("NewFrontDoor gave up after %v, before DescribeWait", took)
	}
	remote, err := toolset.New(toolset.Options{Remote: fd})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	usual, err := toolset.New(toolset.Options{Remote: noDefs{fd}})
	if err != nil {
		t.Fatal(err)
	}
	defer usual.Close()
	a, _ := json.Marshal(remote.Definitions())
	b, _ := json.Marshal(usual.Definitions())
	if !bytes.Equal(a, b) || len(remote.Tools()) != len(toolset.AllTools) {
		t.Errorf("the fallback definitions differ from the usual ones")
	}
}

// noDefs hides a front door's definitions: a plain toolset.Remote.
type noDefs struct{ toolset.Remote }

// promoteWorkflow calls run_command with quick retries and returns its
// structured result.
func promoteWorkflow(ctx workflow.Context, ws WorkspaceRef, command string) (ToolResult, error) {
	ctx = WithCallOptions(ctx, CallOptions{RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 3}})
	args, _ := json.Marshal(map[string]any{"command": command})
	return Call(ctx, ws, ToolCall{Tool: toolset.RunCommand, Args: args})
}

// TestRetriedPromotionReattaches: on a worker with a ForegroundTimeout,
// the first attempt of a run_command Call promotes its command to a job
// and then fails (an interceptor fails it); the retry starts no second
// process: it waits on the same job, promoted again under the same ID,
// which derives from the workflow run and the activity.
func TestRetriedPromotionReattaches(t *testing.T) {
	counter := &attemptCounter{failFirst: ActivityCall}
	e := newEnv(t, promoteWorkflow)
	ref := e.host("promote-"+sanitize(t.Name()), func(o *WorkerOptions) {
		o.ForegroundTimeout = 300 * time.Millisecond
		o.Worker.Interceptors = append(o.Worker.Interceptors, counter)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := e.start(ctx, promoteWorkflow, ref, "echo run >> runs; sleep 3; echo done")
	var res ToolResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if n := counter.count(ActivityCall); n != 2 {
		t.Fatalf("%d attempts of the call, want 2 (the first failed after it promoted)", n)
	}
	var promoted struct {
		Promoted bool   `json:"promoted"`
		ID       string `json:"id"`
	}
	if err := json.Unmarshal(res.Structured, &promoted); err != nil || !promoted.Promoted || !strings.Contains(res.Text, promoted.ID) {
		t.Fatalf("the retried call: %q %s: want the command promoted", res.Text, res.Structured)
	}
	if n := lines(t, join(ref, "runs")); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
	m, err := jobs.New(mustShell(t, ref.Path), jobs.Options{KeyDir: e.keyDir})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	list, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Jobs) != 1 || list.Jobs[0].ID != promoted.ID {
		t.Fatalf("the workspace's jobs: %+v, want only %s", list.Jobs, promoted.ID)
	}
	if _, err := m.Stop(ctx, jobs.StopRequest{ID: promoted.ID}); err != nil {
		t.Fatal(err)
	}
}

// mustShell is a default Shell on workspace ws.
func mustShell(t *testing.T, ws string) *shellcap.Shell {
	t.Helper()
	return newShell(t, shellcap.Options{Workspace: ws})
}

// newShell is a Shell with opts, closed at the test's end.
func newShell(t testing.TB, opts shellcap.Options) *shellcap.Shell {
	t.Helper()
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// TestSessionLearnsLimits: a session workflow whose workspace's worker
// allows commands of up to 2 h bounds a run_command without
// timeout_seconds by that (plus the grace), not by shellcap's default
// MaxTimeout, which such a command would outlast; it describes the
// workspace once for its calls, and a call with a timeout needs no
// description. The history replays.
func TestSessionLearnsLimits(t *testing.T) {
	e := newEnv(t)
	ref := e.host("limits-"+sanitize(t.Name()), func(o *WorkerOptions) {
		base := o.Shell
		o.Shell = func(ws string) shellcap.Options { so := base(ws); so.MaxTimeout = 2 * time.Hour; return so }
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, args := range []string{`{"command":"true","timeout_seconds":5}`, `{"command":"true"}`, `{"command":"true"}`} {
		res, err := CallSession(ctx, e.c, ref, ToolCall{Conversation: "c", Tool: toolset.RunCommand, Args: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("run_command %s: %+v, %v", args, res, err)
		}
	}
	var budgets []time.Duration
	describes := 0
	iter := e.c.GetWorkflowHistory(ctx, SessionWorkflowID(ref), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			switch a.GetActivityType().GetName() {
			case ActivityCall:
				budgets = append(budgets, a.GetStartToCloseTimeout().AsDuration())
			case ActivityDescribe:
				describes++
			}
		}
	}
	want := []time.Duration{5*time.Second + DefaultGrace, 2*time.Hour + DefaultGrace, 2*time.Hour + DefaultGrace}
	if !slices.Equal(budgets, want) || describes != 1 {
		t.Fatalf("the calls' start-to-close timeouts %v (want %v), %d descriptions (want 1)", budgets, want, describes)
	}
	replaySession(t, e.c, ref)
}
