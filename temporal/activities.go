package temporal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// RunInput is the input of the Run activity.
type RunInput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Request   Request      `json:"request"`
	// Progress asks for a ProgressSignal to the calling workflow at each
	// heartbeat.
	Progress bool `json:"progress,omitempty"`
}

// StartInput is the input of the Start activity.
type StartInput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Request   StartRequest `json:"request"`
}

// JobInput is the input of the Check, Wait, SendInput and Stop activities.
type JobInput struct {
	Workspace WorkspaceRef `json:"workspace"`
	ID        string       `json:"id"`
	// NewOnly (Check) asks only for the output since the last look.
	NewOnly bool `json:"new_only,omitempty"`
	// Timeout (Wait) is how long to wait; zero means jobs.DefaultWait.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Input and EOF (SendInput) are written to the job's stdin. Input
	// travels as bytes (base64 in JSON), so it arrives unchanged.
	Input []byte `json:"input,omitempty"`
	EOF   bool   `json:"eof,omitempty"`
	// Progress (Wait) asks for a ProgressSignal at each heartbeat.
	Progress bool `json:"progress,omitempty"`
}

// ListInput is the input of the List activity.
type ListInput struct {
	Workspace WorkspaceRef `json:"workspace"`
}

// CallInput is the input of the Call activity.
type CallInput struct {
	Workspace WorkspaceRef `json:"workspace"`
	Call      ToolCall     `json:"call"`
	// Progress asks for a ProgressSignal to the calling workflow at each
	// heartbeat.
	Progress bool `json:"progress,omitempty"`
}

// Activities are the activities a worker registers (under the Activity
// names) on its host's task queue. [NewWorker] builds and registers them
// ([Worker.Activities]); their methods are called by the Temporal SDK.
type Activities struct {
	host     string
	ws       *workspaces
	client   client.Client
	interval time.Duration
	fg       *foreground
	logger   *slog.Logger
}

var errWorkerStopping = temporal.NewApplicationError("shellcap: the worker is stopping; the call will be retried", "shellcap.WorkerStopping")

// ended is the activity's error when ctx ended before the call was
// complete: retryable when the worker is stopping, else ctx's error (the
// activity was cancelled or timed out).
func ended(ctx context.Context) error {
	select {
	case <-activity.GetWorkerStopChannel(ctx):
		return errWorkerStopping
	default:
	}
	return ctx.Err()
}

// begin finds the workspace and its tools and starts the heartbeats;
// a non-empty liveCall makes them carry the latest output under that
// call ID (ToolCall.CallID).
func (a *Activities) begin(ctx context.Context, ref WorkspaceRef, signal bool, liveCall string) (*workspace, *tracker, func(), error) {
	w, err := a.ws.lookup(ref)
	if err != nil {
		return nil, nil, nil, err
	}
	t := newTracker()
	if liveCall != "" {
		t.keepLive(liveCall, activity.GetInfo(ctx).Attempt)
	}
	stop := heartbeat(ctx, a.client, a.interval, signal, t)
	return w, t, stop, nil
}

// Run runs one command in the workspace: the Run activity.
func (a *Activities) Run(ctx context.Context, in RunInput) (Result, error) {
	w, t, stop, err := a.begin(ctx, in.Workspace, in.Progress, "")
	if err != nil {
		return Result{}, err
	}
	defer stop()
	sh, _, _, err := w.get(a.ws.opts)
	if err != nil {
		return Result{}, err
	}
	req := shellcap.Request{Command: in.Request.Command, Timeout: in.Request.Timeout, Dir: in.Request.Dir, Env: in.Request.Env, OnOutput: t.output}
	if len(in.Request.Stdin) > 0 {
		req.Stdin = bytes.NewReader(in.Request.Stdin)
	}
	onStart, finish := a.fg.track(ctx, w, in.Request.Command)
	req.OnStart = onStart
	res, err := sh.Run(ctx, req)
	finish()
	if err != nil {
		return Result{}, a.hostError(ctx, err)
	}
	if res.Err != nil {
		return Result{}, refuse(res.Text(), res.Err)
	}
	if res.Canceled && ctx.Err() != nil {
		return Result{}, ended(ctx)
	}
	return fit(resultOf(res, a.host)), nil
}

// hostError sorts an error of the host's call: ctx's end, a refusal the
// model can act on (non-retryable), or an infrastructure failure
// (retryable).
func (a *Activities) hostError(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ended(ctx)
	case errors.Is(err, shellcap.ErrStart), errors.Is(err, shellcap.ErrInvalidOptions), errors.Is(err, shellcap.ErrReadOnlyWorkspace):
		return refuse(err.Error(), err)
	case errors.Is(err, shellcap.ErrClosed), errors.Is(err, jobs.ErrClosed):
		return errWorkerStopping
	}
	return err
}

// Start starts a background job: the Start activity. Its ID derives from
// the workflow run and the activity, so a retried start re-attaches to the
// job its first attempt started.
func (a *Activities) Start(ctx context.Context, in StartInput) (Job, error) {
	w, _, stop, err := a.begin(ctx, in.Workspace, false, "")
	if err != nil {
		return Job{}, err
	}
	defer stop()
	_, m, _, err := w.get(a.ws.opts)
	if err != nil {
		return Job{}, err
	}
	r := in.Request
	res, err := m.Start(ctx, jobs.StartRequest{ID: activityJobID(ctx), Command: r.Command, Stdin: r.Stdin, Dir: r.Dir, Env: r.Env})
	if err != nil {
		return Job{}, a.hostError(ctx, err)
	}
	if res.Err != nil {
		return Job{}, refuse(res.Text(), res.Err)
	}
	return Job{ID: res.ID, Command: res.Command, PID: res.PID, PGID: res.PGID, Reattached: res.Reattached, Text: res.Text(), Host: a.host}, nil
}

// Check reports a job: the Check activity.
func (a *Activities) Check(ctx context.Context, in JobInput) (JobResult, error) {
	return a.job(ctx, in, false, func(m *jobs.Manager) (*jobs.JobResult, error) {
		return m.Check(ctx, jobs.CheckRequest{ID: in.ID, NewOnly: in.NewOnly})
	})
}

// Wait waits for a job: the Wait activity.
func (a *Activities) Wait(ctx context.Context, in JobInput) (JobResult, error) {
	return a.job(ctx, in, in.Progress, func(m *jobs.Manager) (*jobs.JobResult, error) {
		return m.Wait(ctx, in.ID, in.Timeout)
	})
}

// Stop stops a job: the Stop activity.
func (a *Activities) Stop(ctx context.Context, in JobInput) (JobResult, error) {
	return a.job(ctx, in, false, func(m *jobs.Manager) (*jobs.JobResult, error) {
		return m.Stop(ctx, jobs.StopRequest{ID: in.ID})
	})
}

func (a *Activities) job(ctx context.Context, in JobInput, signal bool, op func(*jobs.Manager) (*jobs.JobResult, error)) (JobResult, error) {
	w, _, stop, err := a.begin(ctx, in.Workspace, signal, "")
	if err != nil {
		return JobResult{}, err
	}
	defer stop()
	_, m, _, err := w.get(a.ws.opts)
	if err != nil {
		return JobResult{}, err
	}
	res, err := op(m)
	if err != nil {
		return JobResult{}, a.hostError(ctx, err)
	}
	if res.Err != nil {
		return JobResult{}, refuse(res.Text(), res.Err)
	}
	structured, err := json.Marshal(res)
	if err != nil {
		return JobResult{}, fmt.Errorf("temporal: the job result: %w", err)
	}
	return fit(JobResult{Text: res.Text(), Structured: structured, ID: res.ID, Status: string(res.Status), ExitCode: res.ExitCode, Host: a.host}), nil
}

// SendInput writes to a job's stdin: the SendInput activity.
func (a *Activities) SendInput(ctx context.Context, in JobInput) (InputResult, error) {
	w, _, stop, err := a.begin(ctx, in.Workspace, false, "")
	if err != nil {
		return InputResult{}, err
	}
	defer stop()
	_, m, _, err := w.get(a.ws.opts)
	if err != nil {
		return InputResult{}, err
	}
	res, err := m.Input(ctx, jobs.InputRequest{ID: in.ID, Text: string(in.Input), EOF: in.EOF})
	if err != nil {
		return InputResult{}, a.hostError(ctx, err)
	}
	if res.Err != nil {
		return InputResult{}, refuse(res.Text(), res.Err)
	}
	return InputResult{Text: res.Text(), Bytes: res.Bytes, EOF: res.EOF, Host: a.host}, nil
}

// List lists the workspace's jobs: the List activity.
func (a *Activities) List(ctx context.Context, in ListInput) (JobList, error) {
	w, _, stop, err := a.begin(ctx, in.Workspace, false, "")
	if err != nil {
		return JobList{}, err
	}
	defer stop()
	_, m, _, err := w.get(a.ws.opts)
	if err != nil {
		return JobList{}, err
	}
	res, err := m.List(ctx)
	if err != nil {
		return JobList{}, a.hostError(ctx, err)
	}
	structured, err := json.Marshal(res)
	if err != nil {
		return JobList{}, fmt.Errorf("temporal: the job list: %w", err)
	}
	return fit(JobList{Text: res.Text(), Structured: structured, Host: a.host}), nil
}

// Call calls one toolset tool: the Call activity. What the tool gives
// back, refusals included, is the ToolResult (a refusal has IsError set
// and the tool's text), so the model reads exactly what the toolset says;
// only a call that names no tool, or a workspace the worker does not
// serve, fails as a *Refusal. A job the call starts gets an ID derived
// from the workflow run and the activity, so a retried call re-attaches
// to it. A command needing approval is not asked about on the host: as
// ToolCall.Ask says, the call ends with ToolResult.Pending (the caller
// calls again with ToolCall.Answer, or ToolCall.ApprovalError when its
// asking failed), or the command is refused as no one can approve it.
// With ToolCall.Live the heartbeats carry the call's latest output.
func (a *Activities) Call(ctx context.Context, in CallInput) (ToolResult, error) {
	w, t, stop, err := a.begin(ctx, in.Workspace, in.Progress, liveCallID(in.Call))
	if err != nil {
		return ToolResult{}, err
	}
	defer stop()
	_, _, ts, err := w.get(a.ws.opts)
	if err != nil {
		return ToolResult{}, err
	}
	call := in.Call
	if ts.Tool(call.Tool) == nil {
		return ToolResult{}, refuseKind(KindUnknownTool, "toolset.ErrUnknownTool", unknownToolText(call.Tool, ts, in.Workspace))
	}
	conv := ts.Stateless()
	if call.Conversation != "" {
		conv = ts.Conversation(call.Conversation)
	}
	if call.SeeAllJobs {
		conv.SeeAllJobs()
	}
	hooks, err := callHooks(call)
	if err != nil {
		return ToolResult{}, err
	}
	// The shell tool gives its output to Output as well as to Event.
	hooks.Output = t.output
	hooks.JobID = activityJobID(ctx)
	if call.Tool == toolset.BashTool && call.Conversation != "" && call.Cwd != "" {
		// A shell this worker starts for the conversation (it restarted
		// since the last call) begins in the kept directory; a running
		// shell is not moved.
		conv.SetBashDir(call.Cwd)
	}
	finish := func() {}
	if call.Tool == toolset.RunCommand && w.promotes() == 0 {
		// Recorded like Run's, so a restarted worker finds the group. A
		// command that may be promoted runs as a job instead, which
		// outlives the worker: a retried call waits on it (hooks.JobID).
		hooks.OnStart, finish = a.fg.track(ctx, w, commandArg(call.Args))
	}
	res, err := conv.Call(ctx, call.Tool, call.Args, hooks)
	finish()
	if err != nil {
		return ToolResult{}, a.hostError(ctx, err)
	}
	out := ToolResult{Text: res.Text, Notices: res.Notices, IsError: res.IsError, Pending: res.Pending, Host: a.host}
	if res.Structured != nil {
		if out.Structured, err = json.Marshal(res.Structured); err != nil {
			return ToolResult{}, fmt.Errorf("temporal: the structured result of %s: %w", call.Tool, err)
		}
	}
	if call.Tool == toolset.BashTool && res.Run != nil && res.Run.Err == nil {
		out.Cwd = res.Run.Cwd
	}
	return fit(out), nil
}

// commandArg is the command argument of a tool call, for its foreground
// record; empty when there is none.
func commandArg(args json.RawMessage) string {
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	return a.Command
}

// liveCallID is the call ID under which the call's heartbeats carry its
// live output, "" when it asked for none.
func liveCallID(call ToolCall) string {
	if !call.Live {
		return ""
	}
	return call.CallID
}

// callHooks are the approval hooks equivalent to those of the call's
// host (ToolCall.Ask, Answer, ApprovalError), so that the toolset refuses
// or runs the command with the text it gives the host locally. A value
// of Ask the worker does not know is refused: it cannot tell how to ask.
func callHooks(call ToolCall) (toolset.Hooks, error) {
	switch {
	case call.ApprovalError != "":
		failure := errors.New(call.ApprovalError)
		return toolset.Hooks{Approve: func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, failure
		}}, nil
	case call.Ask == AskNoOne:
		return toolset.Hooks{Answer: call.Answer}, nil
	case call.Ask == AskByInterrupt:
		return toolset.Hooks{Interrupt: true, Answer: call.Answer}, nil
	}
	return toolset.Hooks{}, refuseKind(KindBadRequest, "", fmt.Sprintf("The call's approval mode %s is not one this worker knows (%q or %q).", toolset.Echo(call.Ask), AskByInterrupt, AskNoOne))
}

// unknownToolText is what the model reads of a call of a tool the
// workspace's toolset does not offer.
func unknownToolText(name string, ts *toolset.Toolset, ws WorkspaceRef) string {
	names := toolNames(ts)
	if len(names) == 0 {
		return fmt.Sprintf("Unknown tool %s: the workspace %s offers no tools (it is read-only).", toolset.Echo(name), ws)
	}
	return fmt.Sprintf("Unknown tool %s. The tools are: %s.", toolset.Echo(name), strings.Join(names, ", "))
}

func toolNames(ts *toolset.Toolset) []string {
	var names []string
	for _, tool := range ts.Tools() {
		names = append(names, tool.Name)
	}
	return names
}

// activityJobID is the ID of a job the current activity starts: derived
// from the workflow ID, its run ID and the activity ID, which a retry of
// the activity keeps.
func activityJobID(ctx context.Context) string {
	info := activity.GetInfo(ctx)
	return jobs.DeriveID(info.WorkflowExecution.ID, info.WorkflowExecution.RunID, info.ActivityID)
}
