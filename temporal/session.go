package temporal

import (
	"encoding/json"
	"errors"
	"slices"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap/toolset"
)

// Names of the session workflow, its update and its query.
const (
	// SessionWorkflowName is the workflow type of [SessionWorkflow].
	SessionWorkflowName = "shellcap.Session"
	// SessionCallUpdate is the update that carries a [ToolCall] to the
	// session workflow and returns its [ToolResult].
	SessionCallUpdate = "shellcap.session.call"
	// SessionStatusQuery is the query that returns the session workflow's
	// [SessionState].
	SessionStatusQuery = "shellcap.session.status"
	// SessionWorkflowIDPrefix starts the ID of every session workflow.
	SessionWorkflowIDPrefix = "shellcap-session-"
	// SessionCancelSignal is the signal that cancels the session's call
	// whose ToolCall.CallID is its payload (a string): a call waiting for
	// its turn ends without running, a running one has its activity
	// cancelled, which stops its command (SIGTERM, the kill grace,
	// SIGKILL). The front door sends it when its host stops waiting.
	SessionCancelSignal = "shellcap.session.cancel"
)

// maxEarlyCancels bounds the cancellations a session keeps for calls it
// has not accepted yet (the signal can overtake its update).
const maxEarlyCancels = 64

// DefaultSessionCallsPerRun is SessionInput.CallsPerRun's default.
const DefaultSessionCallsPerRun = 500

// MaxSessionJobs bounds the session workflow's job table: past it, the
// finished jobs reported longest ago are forgotten first.
const MaxSessionJobs = 256

// SessionWorkflowID is the workflow ID of the session workflow of ws: one
// per workspace.
func SessionWorkflowID(ws WorkspaceRef) string { return SessionWorkflowIDPrefix + ws.String() }

// SessionInput starts (or continues) a session workflow.
type SessionInput struct {
	// Workspace is the workspace the session serves. Required.
	Workspace WorkspaceRef `json:"workspace"`
	// CallsPerRun is how many calls one run serves before it continues as
	// new, carrying its state. Zero means DefaultSessionCallsPerRun.
	CallsPerRun int `json:"calls_per_run,omitempty"`
	// State is the state a previous run carried over; nil for a new
	// session.
	State *SessionState `json:"state,omitempty"`
}

// SessionState is what a session workflow keeps, and what its query
// returns.
type SessionState struct {
	// Workspace is the workspace the session serves.
	Workspace WorkspaceRef `json:"workspace"`
	// Cwd holds each conversation's sticky directory: where its bash shell
	// was after its last bash call. A worker that has to start the shell
	// anew (it restarted) starts it there.
	Cwd map[string]string `json:"cwd,omitempty"`
	// Jobs are the background jobs the session's calls started, oldest
	// first, with their last known status.
	Jobs []SessionJob `json:"jobs,omitempty"`
	// Calls counts the calls served, over every run.
	Calls int `json:"calls"`
	// Runs counts the runs: 1 until the first continue-as-new.
	Runs int `json:"runs"`
}

// SessionJob is one row of the session's job table.
type SessionJob struct {
	// ID is the job's ID (command_id).
	ID string `json:"id"`
	// Command is the job's command line.
	Command string `json:"command"`
	// Conversation is the conversation that started it.
	Conversation string `json:"conversation,omitempty"`
	// Tool is the tool that started it (start_command, shell,
	// run_command when promoted).
	Tool string `json:"tool"`
	// Status is the last status a result reported: "running",
	// "finished" or "stopped".
	Status string `json:"status"`
	// ExitCode is the exit code once a result reported one.
	ExitCode *int `json:"exit_code,omitempty"`
}

// SessionWorkflow is the session workflow of one workspace: it runs on the
// workspace's host queue under the ID SessionWorkflowID(ws), serves the
// [SessionCallUpdate] update by calling the tool on the workspace's host
// (the Call activity), and keeps in its state each conversation's sticky
// directory and the job table (the [SessionStatusQuery] query returns
// them). Calls of different conversations run concurrently; those of one
// conversation run one at a time, in the order they arrived. After
// CallsPerRun calls (or when the server suggests it) it continues as new
// with its state.
func SessionWorkflow(ctx workflow.Context, in SessionInput) error {
	if err := in.Workspace.Validate(); err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), KindUnknownWorkspace, nil)
	}
	perRun := in.CallsPerRun
	if perRun <= 0 {
		perRun = DefaultSessionCallsPerRun
	}
	s := &sessionRun{state: SessionState{Workspace: in.Workspace}, next: map[string]int{}, serving: map[string]int{}, cancels: map[string]workflow.CancelFunc{}}
	if in.State != nil {
		s.state = *in.State
	}
	s.state.Workspace = in.Workspace
	s.state.Runs++
	if err := workflow.SetQueryHandler(ctx, SessionStatusQuery, func() (SessionState, error) {
		return s.snapshot(), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, SessionCallUpdate, s.call, workflow.UpdateHandlerOptions{
		Validator: s.validate,
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, SessionCloseUpdate, s.close, workflow.UpdateHandlerOptions{
		Validator: s.validateClose,
	}); err != nil {
		return err
	}
	cancels := workflow.GetSignalChannel(ctx, SessionCancelSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var id string
			if !cancels.Receive(ctx, &id) {
				return
			}
			s.cancel(id)
		}
	})
	err := workflow.Await(ctx, func() bool {
		return (s.calls >= perRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested()) && s.accepted == s.calls
	})
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	state := s.snapshot()
	return workflow.NewContinueAsNewError(ctx, SessionWorkflowName, SessionInput{Workspace: in.Workspace, CallsPerRun: in.CallsPerRun, State: &state})
}

// sessionRun is a session workflow run's state and its handlers.
type sessionRun struct {
	state SessionState
	// next and serving are each conversation's ticket counters: a call
	// takes next[c] and runs when serving[c] reaches it.
	next, serving map[string]int
	accepted      int // calls accepted by this run
	calls         int // calls of this run that have finished
	// cancels cancel the calls in this run by ToolCall.CallID; early
	// holds, oldest first, the IDs cancelled before their call came.
	cancels map[string]workflow.CancelFunc
	early   []string
	// limits is the workspace's description, asked for (once per run) by
	// the first call whose activity budget needs it; nil until then, and
	// after it failed.
	limits     *Description
	describing workflow.Future
}

// cancel cancels the call named id, or remembers it for when it comes.
func (s *sessionRun) cancel(id string) {
	if id == "" {
		return
	}
	if cancel, ok := s.cancels[id]; ok {
		cancel()
		return
	}
	if len(s.early) >= maxEarlyCancels {
		s.early = s.early[1:]
	}
	s.early = append(s.early, id)
}

// withCancel is ctx, cancelled when the call's cancel signal comes (or
// came already); release forgets the call.
func (s *sessionRun) withCancel(ctx workflow.Context, id string) (cctx workflow.Context, release func()) {
	cctx, cancel := workflow.WithCancel(ctx)
	if id == "" {
		return cctx, cancel
	}
	if i := slices.Index(s.early, id); i >= 0 {
		s.early = slices.Delete(s.early, i, i+1)
		cancel()
	}
	s.cancels[id] = cancel
	return cctx, func() { delete(s.cancels, id); cancel() }
}

// validate refuses a call that names no tool before it enters history.
func (s *sessionRun) validate(ctx workflow.Context, call ToolCall) error {
	if call.Tool == "" {
		return errors.New("shellcap: a tool call names no tool")
	}
	return nil
}

// call serves one update: it waits for the conversation's earlier calls,
// calls the tool on the workspace's host with the sticky directory, and
// records what the result says about the directory and the jobs.
func (s *sessionRun) call(ctx workflow.Context, call ToolCall) (ToolResult, error) {
	s.accepted++
	defer func() { s.calls++ }()
	cctx, release := s.withCancel(ctx, call.CallID)
	defer release()
	conv := call.Conversation
	if conv != "" { // a stateless call waits for no one
		ticket := s.next[conv]
		s.next[conv]++
		// A cancelled call still waits for its turn, so the next ones
		// keep their order.
		if err := workflow.Await(ctx, func() bool { return s.serving[conv] == ticket }); err != nil {
			return ToolResult{}, err
		}
		defer func() { s.serving[conv]++ }()
	}
	if err := cctx.Err(); err != nil {
		return ToolResult{}, err
	}
	if call.Tool == toolset.BashTool && conv != "" && call.Cwd == "" {
		call.Cwd = s.state.Cwd[conv]
	}
	if needsLimits(call) {
		if l := s.describe(ctx); l != nil {
			cctx = WithCallOptions(cctx, CallOptions{Limits: l})
		}
	}
	res, err := Call(cctx, s.state.Workspace, call)
	s.state.Calls++
	if err != nil {
		var refusal *Refusal
		if errors.As(err, &refusal) {
			return ToolResult{Text: refusal.Text, IsError: true, Host: s.state.Workspace.Host}, nil
		}
		return ToolResult{}, err
	}
	if res.Cwd != "" && conv != "" {
		if s.state.Cwd == nil {
			s.state.Cwd = map[string]string{}
		}
		s.state.Cwd[conv] = res.Cwd
	}
	s.recordJobs(call, res)
	return res, nil
}

// snapshot is a copy of the state.
func (s *sessionRun) snapshot() SessionState {
	st := s.state
	if st.Cwd != nil {
		st.Cwd = make(map[string]string, len(s.state.Cwd))
		for k, v := range s.state.Cwd {
			st.Cwd[k] = v
		}
	}
	st.Jobs = append([]SessionJob(nil), s.state.Jobs...)
	return st
}

// jobFacts are the fields of a tool's structured result that speak of a
// job: start_command's, check/wait/stop_command's, the shell tool's, a
// promoted run_command's, list_commands' rows.
type jobFacts struct {
	ID       string          `json:"id"`
	Command  string          `json:"command"`
	Status   json.RawMessage `json:"status"`
	ExitCode *int            `json:"exit_code"`
	Finished *bool           `json:"finished"`
	Promoted bool            `json:"promoted"`
	Jobs     []jobFacts      `json:"jobs"`
}

// status is the job's status as the result words it, "" when it does
// not.
func (f jobFacts) status() string {
	var s string
	if json.Unmarshal(f.Status, &s) == nil && s != "" {
		return s
	}
	if f.Finished != nil {
		if *f.Finished {
			return "finished"
		}
		return "running"
	}
	return ""
}

// recordJobs updates the job table from a call's result.
func (s *sessionRun) recordJobs(call ToolCall, res ToolResult) {
	if res.IsError || res.Pending != nil || len(res.Structured) == 0 {
		return
	}
	var f jobFacts
	if json.Unmarshal(res.Structured, &f) != nil {
		return
	}
	switch call.Tool {
	case toolset.StartCommand, toolset.ShellTool:
		st := f.status()
		if st == "" {
			st = "running"
		}
		s.upsert(SessionJob{ID: f.ID, Command: f.Command, Conversation: call.Conversation, Tool: call.Tool, Status: st, ExitCode: f.ExitCode}, true)
	case toolset.RunCommand:
		if f.Promoted {
			s.upsert(SessionJob{ID: f.ID, Command: f.Command, Conversation: call.Conversation, Tool: call.Tool, Status: "running"}, true)
		}
	case toolset.CheckCommand, toolset.WaitCommand:
		s.upsert(SessionJob{ID: f.ID, Status: f.status(), ExitCode: f.ExitCode}, false)
	case toolset.StopCommand:
		s.upsert(SessionJob{ID: f.ID, Status: "stopped", ExitCode: f.ExitCode}, false)
	case toolset.ListCommands:
		for _, row := range f.Jobs {
			s.upsert(SessionJob{ID: row.ID, Command: row.Command, Status: row.status(), ExitCode: row.ExitCode}, false)
		}
	}
}

// upsert records what a result says of job j: a new row when add (a call
// started it), else an update of a known row's status.
func (s *sessionRun) upsert(j SessionJob, add bool) {
	if j.ID == "" {
		return
	}
	for i := range s.state.Jobs {
		row := &s.state.Jobs[i]
		if row.ID != j.ID {
			continue
		}
		if j.Status != "" && row.Status != "stopped" {
			row.Status = j.Status
		}
		if j.ExitCode != nil {
			row.ExitCode = j.ExitCode
		}
		if row.Command == "" {
			row.Command = j.Command
		}
		return
	}
	if !add {
		return
	}
	if len(s.state.Jobs) >= MaxSessionJobs {
		s.forgetOne()
	}
	s.state.Jobs = append(s.state.Jobs, j)
}

// forgetOne drops the oldest finished or stopped job, else the oldest.
func (s *sessionRun) forgetOne() {
	drop := 0
	for i, j := range s.state.Jobs {
		if j.Status != "running" {
			drop = i
			break
		}
	}
	s.state.Jobs = append(s.state.Jobs[:drop], s.state.Jobs[drop+1:]...)
}

// describeVersion marks the session workflows that describe their
// workspace before a call whose budget needs its limits (workflow
// histories of earlier code have no such activity).
const describeVersion = "shellcap.session.describe"

// describe returns the workspace's description, asking its worker once
// per run (the Describe activity, recorded in the history, so a replay
// sees the same); nil when it cannot be had, and the call's budget keeps
// shellcap's defaults. A worker restarted with other limits is heard of
// at the next run.
func (s *sessionRun) describe(ctx workflow.Context) *Description {
	if s.limits != nil {
		return s.limits
	}
	if s.describing == nil {
		if workflow.GetVersion(ctx, describeVersion, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
			return nil
		}
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			TaskQueue:           s.state.Workspace.TaskQueue(),
			StartToCloseTimeout: shortCall,
			// A worker without the Describe activity fails it; the call
			// then goes ahead with the defaults.
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3},
		})
		s.describing = workflow.ExecuteActivity(actx, ActivityDescribe, DescribeInput{Workspace: s.state.Workspace})
	}
	var d Description
	if err := s.describing.Get(ctx, &d); err != nil {
		return nil
	}
	s.limits = &d
	return s.limits
}

// needsLimits reports a call whose activity budget depends on the
// workspace's limits: run_command or bash without a timeout_seconds.
func needsLimits(call ToolCall) bool {
	if call.Tool != toolset.RunCommand && call.Tool != toolset.BashTool {
		return false
	}
	var args struct {
		TimeoutSeconds *float64 `json:"timeout_seconds"`
	}
	_ = json.Unmarshal(call.Args, &args)
	return args.TimeoutSeconds == nil || *args.TimeoutSeconds <= 0
}
