package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/shellcap/shellcap"

	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/toolset"
)

// WorkspaceHeader is the HTTP header by which an MCP client of the front
// door names its workspace, as HOST:PATH; it must be one the front door
// serves. Without it a call goes to the front door's default workspace.
const WorkspaceHeader = "Shellcap-Workspace"

// ErrWorkspaceNotServed reports a workspace the front door was not given
// (FrontDoorOptions.Workspaces).
var ErrWorkspaceNotServed = errors.New("the workspace is not served by this front door")

// FrontDoorOptions configures a [FrontDoor].
type FrontDoorOptions struct {
	// Workspaces are the workspaces the front door serves. Required: at
	// least one.
	Workspaces []WorkspaceRef
	// Default is the workspace of a call that names none (stdio, an HTTP
	// client without WorkspaceHeader). The zero value means the first of
	// Workspaces; otherwise it must be one of them.
	Default WorkspaceRef
	// OutputPoll is how often the front door looks at a session
	// workflow's pending activities for the output of its calls in
	// flight, which it hands to toolset.Hooks.Output (the MCP server's
	// progress notifications). Zero means DefaultOutputPoll (250 ms);
	// negative hands no output as it arrives.
	OutputPoll time.Duration
	// DataConverter decodes the activities' heartbeats. Nil means the
	// SDK's default; set it to the workers' when they use another.
	DataConverter converter.DataConverter
	// DescribeWait bounds how long NewFrontDoor waits for the worker of
	// the default workspace to describe its tools ([DescribeWorkflow]),
	// whose definitions the front door then offers (see
	// [FrontDoor.Definitions]): the limits the model reads are those of
	// that worker's Shell, and the tools those it backs. When no worker
	// answers in time, the front door logs a warning and offers every
	// tool with shellcap's default limits; the workers still enforce
	// their own. Zero means DefaultDescribeWait (10 s); negative asks no
	// worker and offers the defaults.
	DescribeWait time.Duration
	// Logger receives the front door's warnings (a worker that did not
	// describe its tools). Nil discards them.
	Logger *slog.Logger
}

// DefaultDescribeWait is FrontDoorOptions.DescribeWait's default.
const DefaultDescribeWait = 10 * time.Second

// FrontDoor is a toolset.Remote that makes every tool call a call on the
// session workflow of its workspace ([CallSession]): give it to
// mcpserver.Options.Remote (or toolset.Options.Remote) and the MCP server
// becomes the front door of a fleet of workers, each command running on
// the host that owns its workspace. Each MCP session is a conversation.
// It is safe for concurrent use.
type FrontDoor struct {
	c          client.Client
	workspaces []WorkspaceRef
	def        WorkspaceRef

	poll time.Duration
	dc   converter.DataConverter

	// defs are the definitions of the default workspace's tools, as its
	// worker described them; nil when none did.
	defs []toolset.Definition

	mu     sync.Mutex
	polled map[string]time.Time             // host -> when a worker was last seen polling its queue
	used   map[string]map[WorkspaceRef]bool // conversation -> the workspaces it called
	live   map[WorkspaceRef]*livePoller
}

// pollerCheckEvery is how long a host whose worker was seen polling is
// trusted before the front door looks again.
const pollerCheckEvery = 30 * time.Second

// noPollerLooks is how many times, 250 ms apart, the front door looks for
// a worker of a host before it refuses the call.
const noPollerLooks = 12

// NewFrontDoor builds the front door on client c.
func NewFrontDoor(c client.Client, opts FrontDoorOptions) (*FrontDoor, error) {
	if c == nil {
		return nil, errors.New("temporal: NewFrontDoor needs a client")
	}
	if len(opts.Workspaces) == 0 {
		return nil, errors.New("temporal: the front door needs at least one workspace")
	}
	for _, ws := range opts.Workspaces {
		if err := ws.Validate(); err != nil {
			return nil, fmt.Errorf("temporal: front door: %w", err)
		}
	}
	def := opts.Default
	if def == (WorkspaceRef{}) {
		def = opts.Workspaces[0]
	} else if !slices.Contains(opts.Workspaces, def) {
		return nil, fmt.Errorf("temporal: the front door's default workspace %s is not one of its workspaces", def)
	}
	poll := opts.OutputPoll
	if poll == 0 {
		poll = DefaultOutputPoll
	}
	dc := opts.DataConverter
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f := &FrontDoor{c: c, workspaces: slices.Clone(opts.Workspaces), def: def, poll: poll, dc: dc,
		polled: map[string]time.Time{}, used: map[string]map[WorkspaceRef]bool{}, live: map[WorkspaceRef]*livePoller{}}
	wait := opts.DescribeWait
	if wait == 0 {
		wait = DefaultDescribeWait
	}
	if wait > 0 {
		d, err := describe(c, def, wait)
		if err != nil {
			logger.Warn("shellcap front door: the worker of the default workspace did not describe its tools; offering every tool with shellcap's default limits (the worker enforces its own)",
				"workspace", def.String(), "queue", def.TaskQueue(), "error", err)
		} else {
			f.defs = d.Tools
			logger.Info("shellcap front door: the tools of the default workspace's worker", "workspace", def.String(), "tools", len(d.Tools))
		}
	}
	return f, nil
}

// describe runs DescribeWorkflow for ws on its host's queue and waits at
// most wait for its description.
func describe(c client.Client, ws WorkspaceRef, wait time.Duration) (Description, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       "shellcap-describe-" + ws.String() + "-" + newCallID(),
		TaskQueue:                ws.TaskQueue(),
		WorkflowExecutionTimeout: wait,
	}, DescribeWorkflowName, DescribeInput{Workspace: ws})
	if err != nil {
		return Description{}, err
	}
	var d Description
	if err := run.Get(ctx, &d); err != nil {
		if ctx.Err() != nil {
			return Description{}, fmt.Errorf("no answer within %v (is a worker of host %s running?)", wait, ws.Host)
		}
		return Description{}, err
	}
	if d.Tools == nil {
		return Description{}, errors.New("the description lists no tools")
	}
	return d, nil
}

// Definitions returns the definitions of the tools the default
// workspace's worker offers, as it described them when the front door
// was built (toolset.DescribedRemote: a toolset or MCP server whose
// Remote is the front door offers them); nil when it did not, and the
// usual definitions apply. A call routed to another workspace whose
// worker does not offer the tool gets that worker's refusal as an error
// result.
func (f *FrontDoor) Definitions() []toolset.Definition { return f.defs }

// ParseWorkspace parses HOST:PATH (the form of --workspace and of
// WorkspaceHeader) into a validated WorkspaceRef.
func ParseWorkspace(s string) (WorkspaceRef, error) {
	host, path, ok := strings.Cut(s, ":")
	if !ok {
		return WorkspaceRef{}, fmt.Errorf("invalid workspace %q: want HOST:PATH (e.g. build1:/srv/repo)", s)
	}
	ws := WorkspaceRef{Host: host, Path: path}
	if err := ws.Validate(); err != nil {
		return WorkspaceRef{}, err
	}
	return ws, nil
}

// Workspace returns the workspace a call in ctx goes to: the one its HTTP
// request names in WorkspaceHeader, else the default. A header naming a
// workspace the front door does not serve is ErrWorkspaceNotServed.
func (f *FrontDoor) Workspace(ctx context.Context) (WorkspaceRef, error) {
	named := mcpserver.RequestHeader(ctx).Get(WorkspaceHeader)
	if named == "" {
		return f.def, nil
	}
	ws, err := ParseWorkspace(named)
	if err == nil && slices.Contains(f.workspaces, ws) {
		return ws, nil
	}
	served := make([]string, len(f.workspaces))
	for i, w := range f.workspaces {
		served[i] = w.String()
	}
	return WorkspaceRef{}, fmt.Errorf("%w: the %s header names %s; this server serves %s", ErrWorkspaceNotServed,
		WorkspaceHeader, toolset.Echo(named), strings.Join(served, ", "))
}

// Call makes the tool call on the session workflow of the call's
// workspace; see [toolset.Remote]. A workspace the front door does not
// serve is a result with IsError saying so; nothing runs.
//
// The call reads as the same call of a local toolset with the same
// hooks: the worker is told how the host can ask (ToolCall.Ask); with a
// synchronous hooks.Approve the front door asks it about the command the
// worker left pending and calls again with the answer, or with the
// approver's error (ToolCall.ApprovalError); with hooks.Interrupt the
// pending question is the result. The command's output is handed to
// hooks.Output as it arrives on the worker, about every OutputPoll (see
// ToolCall.Live). A call whose ctx ends is cancelled on the worker
// (SessionCancelSignal): its command is stopped as a local call's is.
func (f *FrontDoor) Call(ctx context.Context, conversation, name string, args json.RawMessage, hooks toolset.Hooks) (*toolset.Result, error) {
	ws, err := f.Workspace(ctx)
	if err != nil {
		return &toolset.Result{Text: "The server refused this call: " + err.Error() + ".", Err: err, IsError: true}, nil
	}
	if msg := f.noWorker(ctx, ws); msg != "" {
		return &toolset.Result{Text: msg, Err: errors.New(msg), IsError: true}, nil
	}
	if conversation != "" {
		f.mu.Lock()
		if f.used[conversation] == nil {
			f.used[conversation] = map[WorkspaceRef]bool{}
		}
		f.used[conversation][ws] = true
		f.mu.Unlock()
	}
	call := ToolCall{Conversation: conversation, Tool: name, Args: args, Answer: hooks.Answer}
	if hooks.Approve == nil && !hooks.Interrupt {
		call.Ask = AskNoOne
	}
	if c := toolset.ConversationOf(ctx); c != nil && c.SeesAllJobs() {
		call.SeeAllJobs = true
	}
	for range maxApprovalRounds {
		res, err := f.callSession(ctx, ws, call, hooks.Output)
		if err != nil {
			return nil, err
		}
		if res.Pending == nil || hooks.Interrupt || hooks.Approve == nil {
			return toolsetResult(res), nil
		}
		q := *res.Pending
		call.Answer, call.ApprovalError = nil, ""
		a, err := hooks.Approve(ctx, q)
		if err != nil {
			call.ApprovalError = err.Error()
			if call.ApprovalError == "" {
				call.ApprovalError = "the approver failed"
			}
			continue
		}
		a.Command = q.Command
		call.Answer = &a
	}
	msg := "The server could not carry out this call: its commands were asked about too many times."
	return &toolset.Result{Text: msg, Err: errors.New(msg), IsError: true}, nil
}

// maxApprovalRounds bounds the rounds of one call whose commands the
// worker asks about (as toolset's remote calls are bounded).
const maxApprovalRounds = 8

// callSession makes one round of a call on the session of ws, handing
// the output to output as it arrives when output is not nil.
func (f *FrontDoor) callSession(ctx context.Context, ws WorkspaceRef, call ToolCall, output func(shellcap.Stream, []byte)) (ToolResult, error) {
	call.CallID = newCallID()
	if output != nil && f.poll >= 0 {
		call.Live = true
		p := f.poller(ws)
		p.add(call.CallID, &liveCall{output: output})
		defer p.remove(call.CallID)
	}
	res, err := CallSession(ctx, f.c, ws, call)
	if err != nil && ctx.Err() != nil {
		// The host stopped waiting (the MCP call was cancelled, its
		// session ended): stop the command, as a local call's end does.
		sctx, cancel := context.WithTimeout(context.Background(), cancelWait)
		_ = f.c.SignalWorkflow(sctx, SessionWorkflowID(ws), "", SessionCancelSignal, call.CallID)
		cancel()
	}
	return res, err
}

// cancelWait bounds the signal that cancels a call the host stopped
// waiting for.
const cancelWait = 10 * time.Second

// poller is the live-output poller of ws's session.
func (f *FrontDoor) poller(ws WorkspaceRef) *livePoller {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p := f.live[ws]; p != nil {
		return p
	}
	p := &livePoller{ws: ws, interval: f.poll, dc: f.dc, describe: f.pendingHeartbeats, calls: map[string]*liveCall{}}
	f.live[ws] = p
	return p
}

// pendingHeartbeats returns the last heartbeat details of the Call
// activities pending in the workflow's current run.
func (f *FrontDoor) pendingHeartbeats(ctx context.Context, workflowID string) ([]*commonpb.Payloads, error) {
	resp, err := f.c.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		return nil, err
	}
	var out []*commonpb.Payloads
	for _, pa := range resp.GetPendingActivities() {
		if pa.GetActivityType().GetName() == ActivityCall && pa.GetHeartbeatDetails() != nil {
			out = append(out, pa.GetHeartbeatDetails())
		}
	}
	return out, nil
}

// noWorker returns why no call can reach the host of ws: Temporal has
// seen no worker poll its task queue (never started, or gone for
// minutes); "" when one was seen. A worker that has just died is still
// seen: the call then waits for its restart, as durable calls do.
func (f *FrontDoor) noWorker(ctx context.Context, ws WorkspaceRef) string {
	f.mu.Lock()
	seen, ok := f.polled[ws.Host]
	f.mu.Unlock()
	if ok && time.Since(seen) < pollerCheckEvery {
		return ""
	}
	// A worker that has just started may not have polled yet: look a
	// few times before refusing.
	for attempt := 0; ; attempt++ {
		resp, err := f.c.DescribeTaskQueue(ctx, ws.TaskQueue(), enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		if err != nil {
			return "" // cannot tell: the call itself reports what is wrong
		}
		if len(resp.GetPollers()) > 0 {
			break
		}
		if attempt == noPollerLooks-1 || ctx.Err() != nil {
			return fmt.Sprintf("The server could not carry out this call: no worker serves the host %s of the workspace %s (nothing polls the task queue %s), so nothing ran. Ask the user to start one on that host: shellcap worker --temporal HOST:PORT --host %s --workspace %s",
				ws.Host, ws, ws.TaskQueue(), ws.Host, ws.Path)
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	f.mu.Lock()
	f.polled[ws.Host] = time.Now()
	f.mu.Unlock()
	return ""
}

// toolsetResult is a session's result as a toolset result.
func toolsetResult(res ToolResult) *toolset.Result {
	out := &toolset.Result{Text: res.Text, Notices: res.Notices, IsError: res.IsError, Pending: res.Pending}
	if len(res.Structured) > 0 {
		out.Structured = res.Structured
	}
	if res.IsError {
		out.Err = errors.New(res.Text)
	}
	return out
}

// Close ends the conversation on the session of every workspace it
// called ([CloseSession]): its bash shells on the hosts are closed; its
// jobs keep running, as when a local conversation ends. It waits at most
// closeWait per workspace.
func (f *FrontDoor) Close(conversation string) error {
	f.mu.Lock()
	used := f.used[conversation]
	delete(f.used, conversation)
	f.mu.Unlock()
	var errs []error
	for ws := range used {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		errs = append(errs, CloseSession(ctx, f.c, ws, conversation))
		cancel()
	}
	return errors.Join(errs...)
}

// closeWait bounds the close of a conversation on one workspace.
const closeWait = 2 * time.Minute

var _ toolset.DescribedRemote = (*FrontDoor)(nil)
