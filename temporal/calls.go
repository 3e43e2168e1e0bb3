package temporal

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

const (
	// DefaultHeartbeatTimeout is CallOptions.HeartbeatTimeout's default:
	// an activity whose worker stops heartbeating for this long is
	// retried elsewhere (or on the restarted worker).
	DefaultHeartbeatTimeout = 10 * time.Second
	// DefaultGrace is CallOptions.Grace's default: shellcap's default
	// kill grace (the time a stopped command has between SIGTERM and
	// SIGKILL) plus 10 s for the result to travel back.
	DefaultGrace = shellcap.DefaultKillGrace + 10*time.Second
	// shortCall is the budget of the calls that run no command (Start,
	// Check, SendInput, List) and of Stop (which takes at most about the
	// kill grace plus 30 s, see jobs.Manager.Stop).
	shortCall = 30 * time.Second
)

// CallOptions configure the activities the workflow-side functions
// schedule. The zero value is the safe default.
type CallOptions struct {
	// HeartbeatTimeout is how long an activity may go without a heartbeat
	// before Temporal considers its worker lost and retries it. Zero means
	// DefaultHeartbeatTimeout (10 s); it should be several times the
	// worker's HeartbeatInterval.
	HeartbeatTimeout time.Duration
	// Grace is added to the command's timeout (or the wait's) to make the
	// activity's start-to-close timeout. Zero means DefaultGrace. A Run
	// whose Request.Timeout is zero runs for the worker Shell's
	// DefaultTimeout, which the workflow knows only from Limits: without
	// it, its activity is bounded by shellcap.DefaultMaxTimeout plus Grace
	// (the heartbeats still detect a lost worker within
	// HeartbeatTimeout).
	Grace time.Duration
	// Limits, when set, is what [Describe] said of the workspace: a Run
	// without a timeout is bounded by its DefaultTimeout, and a Call of
	// run_command or bash without timeout_seconds by its MaxTimeout (plus
	// Grace), instead of shellcap.DefaultMaxTimeout, which a worker with
	// longer limits outlasts. Nil: shellcap's defaults. The session
	// workflow describes its workspace once per run for this.
	Limits *Description
	// RetryPolicy is the activity's retry policy; nil means Temporal's
	// default (retry with backoff, without limit). Refusals are never
	// retried.
	RetryPolicy *sdktemporal.RetryPolicy
	// OnProgress, when set, is called in workflow code with the progress
	// of a running Run or Call (a Wait reports only the time elapsed),
	// about once per heartbeat interval: the activity signals the
	// workflow (ProgressSignal, payload ProgressUpdate naming the
	// activity) and the function waiting for it delivers the updates of
	// its own activity. Concurrent calls through contexts derived from
	// one WithCallOptions (also by further WithCallOptions, say one per
	// call with its own OnProgress) hand each other's updates over; calls
	// through unrelated WithCallOptions contexts, running at the same
	// time, share the signal channel without that, and each may miss
	// updates the other received. Updates are best effort either way.
	OnProgress func(Progress)
}

type callOptionsKey struct{}

// callOptions are CallOptions with the progress router of the context.
type callOptions struct {
	CallOptions
	router *progressRouter
}

// progressRouter hands a progress update that one waiting call received
// to the call whose activity it names, by that call's own channel.
type progressRouter struct {
	calls map[string]workflow.Channel
}

// WithCallOptions returns a workflow context whose shellcap calls use o.
// Contexts derived from one WithCallOptions, by further WithCallOptions
// too, share its progress router (see CallOptions.OnProgress).
func WithCallOptions(ctx workflow.Context, o CallOptions) workflow.Context {
	router := &progressRouter{calls: map[string]workflow.Channel{}}
	if parent, ok := ctx.Value(callOptionsKey{}).(callOptions); ok {
		router = parent.router
	}
	return workflow.WithValue(ctx, callOptionsKey{}, callOptions{CallOptions: o, router: router})
}

func callOptionsOf(ctx workflow.Context) callOptions {
	o, _ := ctx.Value(callOptionsKey{}).(callOptions)
	if o.HeartbeatTimeout <= 0 {
		o.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	return o
}

// Run runs one command in workspace ws, on its host: shellcap.Shell.Run as
// an activity. A refused command (the policy, an approval no one can give
// on the host, a bad request, a spawn failure, a workspace the host does
// not serve) is a *Refusal whose Text is what the model reads; it is not
// retried. Cancelling the workflow stops the command's process group
// (SIGTERM, the kill grace, SIGKILL) before the activity reports.
func Run(ctx workflow.Context, ws WorkspaceRef, req Request) (Result, error) {
	budget := req.Timeout
	if budget <= 0 {
		budget = shellcap.DefaultMaxTimeout
		if l := callOptionsOf(ctx).Limits; l != nil && l.DefaultTimeout > 0 {
			budget = l.DefaultTimeout
		}
	}
	var out Result
	err := execute(ctx, ws, ActivityRun, budget, true, func(progress bool) any {
		return RunInput{Workspace: ws, Request: req, Progress: progress}
	}, &out)
	return out, err
}

// Start starts a background job in ws. Its ID derives from this workflow
// run and the activity, so a retried start re-attaches to the job the
// first attempt started (Job.Reattached).
func Start(ctx workflow.Context, ws WorkspaceRef, req StartRequest) (Job, error) {
	var out Job
	err := execute(ctx, ws, ActivityStart, shortCall, false, func(bool) any { return StartInput{Workspace: ws, Request: req} }, &out)
	return out, err
}

// Check reports job id of ws; newOnly asks only for the output since the
// last look.
func Check(ctx workflow.Context, ws WorkspaceRef, id string, newOnly bool) (JobResult, error) {
	var out JobResult
	err := execute(ctx, ws, ActivityCheck, shortCall, false, func(bool) any { return JobInput{Workspace: ws, ID: id, NewOnly: newOnly} }, &out)
	return out, err
}

// Wait waits up to timeout (zero: jobs.DefaultWait) for job id of ws to
// finish, then reports like Check.
func Wait(ctx workflow.Context, ws WorkspaceRef, id string, timeout time.Duration) (JobResult, error) {
	budget := timeout
	if budget <= 0 {
		budget = jobs.DefaultWait
	}
	var out JobResult
	err := execute(ctx, ws, ActivityWait, budget, true, func(progress bool) any {
		return JobInput{Workspace: ws, ID: id, Timeout: timeout, Progress: progress}
	}, &out)
	return out, err
}

// SendInput writes input to the stdin of job id of ws (started with
// StartRequest.Stdin); eof closes the stdin after it.
func SendInput(ctx workflow.Context, ws WorkspaceRef, id, input string, eof bool) (InputResult, error) {
	var out InputResult
	err := execute(ctx, ws, ActivitySendInput, shortCall, false, func(bool) any {
		return JobInput{Workspace: ws, ID: id, Input: []byte(input), EOF: eof}
	}, &out)
	return out, err
}

// Stop stops job id of ws and reports its final output.
func Stop(ctx workflow.Context, ws WorkspaceRef, id string) (JobResult, error) {
	var out JobResult
	err := execute(ctx, ws, ActivityStop, shortCall, false, func(bool) any { return JobInput{Workspace: ws, ID: id} }, &out)
	return out, err
}

// List lists the jobs of ws.
func List(ctx workflow.Context, ws WorkspaceRef) (JobList, error) {
	var out JobList
	err := execute(ctx, ws, ActivityList, shortCall, false, func(bool) any { return ListInput{Workspace: ws} }, &out)
	return out, err
}

// Call calls one toolset tool in ws and returns its result exactly as the
// toolset gives it: a refused command is a ToolResult with IsError and the
// tool's text, not an error; only an unknown tool or workspace is a
// *Refusal. The activity's budget follows the call's timeout argument
// (timeout_seconds, or timeout for the shell tool).
func Call(ctx workflow.Context, ws WorkspaceRef, call ToolCall) (ToolResult, error) {
	var out ToolResult
	err := execute(ctx, ws, ActivityCall, callBudget(call, callOptionsOf(ctx).Limits), true, func(progress bool) any {
		return CallInput{Workspace: ws, Call: call, Progress: progress}
	}, &out)
	return out, err
}

// callBudget is how long call may run before its activity's grace: the
// timeout it asks for, else the longest its tool may take by default
// (for run_command and bash, the workspace's MaxTimeout when limits
// knows it).
func callBudget(call ToolCall, limits *Description) time.Duration {
	var args struct {
		TimeoutSeconds *float64 `json:"timeout_seconds"`
		Timeout        *float64 `json:"timeout"`
	}
	_ = json.Unmarshal(call.Args, &args)
	seconds := func(p *float64, def time.Duration) time.Duration {
		if p == nil || *p <= 0 || math.IsNaN(*p) || *p > 1e6 {
			return def
		}
		return time.Duration(*p * float64(time.Second))
	}
	switch call.Tool {
	case toolset.RunCommand, toolset.BashTool:
		def := shellcap.DefaultMaxTimeout
		if limits != nil && limits.MaxTimeout > 0 {
			def = limits.MaxTimeout
		}
		return seconds(args.TimeoutSeconds, def)
	case toolset.WaitCommand:
		return seconds(args.TimeoutSeconds, jobs.DefaultWait)
	case toolset.ShellTool:
		return seconds(args.Timeout, jobs.MaxShellTimeout)
	}
	return shortCall
}

// execute schedules activity name for ws on its host's queue and waits for
// it, delivering progress to OnProgress when the activity can report it
// (progress) and the caller asked. in builds the activity's input.
func execute(ctx workflow.Context, ws WorkspaceRef, name string, budget time.Duration, progress bool, in func(progress bool) any, out any) error {
	if err := ws.Validate(); err != nil {
		return &Refusal{Kind: KindUnknownWorkspace, Text: err.Error(), sentinel: "ErrUnknownWorkspace", cause: err}
	}
	o := callOptionsOf(ctx)
	ao := workflow.ActivityOptions{
		TaskQueue:           ws.TaskQueue(),
		StartToCloseTimeout: budget + o.Grace,
		HeartbeatTimeout:    o.HeartbeatTimeout,
		RetryPolicy:         o.RetryPolicy,
		WaitForCancellation: true,
	}
	progress = progress && o.OnProgress != nil
	if progress {
		ao.ActivityID = newActivityID(ctx)
	}
	input := in(progress)
	if err := checkPayload(input); err != nil {
		return err
	}
	fut := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, ao), name, input)
	if progress {
		o.router.wait(ctx, ao.ActivityID, fut, o.OnProgress)
	}
	return refusalOf(fut.Get(ctx, out))
}

// wait delivers the progress updates of activity id to onProgress until
// fut is ready. Updates for the other calls waiting through r are handed
// to them; those of no call r knows are dropped.
func (r *progressRouter) wait(ctx workflow.Context, id string, fut workflow.Future, onProgress func(Progress)) {
	own := workflow.NewBufferedChannel(ctx, 64)
	r.calls[id] = own
	defer delete(r.calls, id)
	signals := workflow.GetSignalChannel(ctx, ProgressSignal)
	for done := false; !done; {
		sel := workflow.NewSelector(ctx)
		sel.AddFuture(fut, func(workflow.Future) { done = true })
		sel.AddReceive(signals, func(c workflow.ReceiveChannel, _ bool) {
			var u ProgressUpdate
			c.Receive(ctx, &u)
			if u.ActivityID == id {
				onProgress(u.Progress)
			} else if other, ok := r.calls[u.ActivityID]; ok {
				other.SendAsync(u)
			}
		})
		sel.AddReceive(own, func(c workflow.ReceiveChannel, _ bool) {
			var u ProgressUpdate
			c.Receive(ctx, &u)
			onProgress(u.Progress)
		})
		sel.Select(ctx)
	}
}

// newActivityID is a fresh activity ID, recorded in the workflow's history
// so that a replay schedules the same one.
func newActivityID(ctx workflow.Context) string {
	var id string
	enc := workflow.SideEffect(ctx, func(workflow.Context) any {
		var b [12]byte
		_, _ = rand.Read(b[:])
		return "shellcap-" + hex.EncodeToString(b[:])
	})
	if err := enc.Get(&id); err != nil {
		panic(err) // a side effect's own value always decodes
	}
	return id
}
