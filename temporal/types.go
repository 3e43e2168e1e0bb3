package temporal

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellcap/shellcap/toolset"
)

// TaskQueuePrefix starts the name of every host's task queue.
const TaskQueuePrefix = "shellcap-host-"

// TaskQueue is the task queue of the host named host: the worker of that
// host polls it, and every call for one of its workspaces is routed to it.
func TaskQueue(host string) string { return TaskQueuePrefix + host }

// WorkspaceRef names a workspace: the host that owns it (a worker's
// --host name) and its absolute path on that host. One host owns many
// workspaces.
type WorkspaceRef struct {
	Host string `json:"host"`
	Path string `json:"path"`
}

// TaskQueue is the task queue of the workspace's host.
func (w WorkspaceRef) TaskQueue() string { return TaskQueue(w.Host) }

// String is host:path.
func (w WorkspaceRef) String() string { return w.Host + ":" + w.Path }

// Validate reports a reference no worker could serve: an empty or
// malformed host name, a path that is not absolute and clean.
func (w WorkspaceRef) Validate() error {
	if err := ValidateHost(w.Host); err != nil {
		return fmt.Errorf("invalid workspace host %q: %w", w.Host, err)
	}
	if w.Path == "" || !filepath.IsAbs(w.Path) || filepath.Clean(w.Path) != w.Path {
		return fmt.Errorf("invalid workspace path %q on host %s: it must be absolute and clean", w.Path, w.Host)
	}
	return nil
}

// ValidateHost checks that name can name a host (and its task queue,
// shellcap-host-NAME); the error matches ErrInvalidHost.
func ValidateHost(name string) error {
	if name == "" || len(name) > 64 || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-')
	}) >= 0 {
		return ErrInvalidHost
	}
	return nil
}

// ToolCall is one call of a toolset tool (run_command, bash, shell, the job
// tools) as the model made it, for [Call] and the session workflow.
type ToolCall struct {
	// Conversation names the toolset conversation the call belongs to
	// (its bash shell, notices, remembered approvals). Empty is a
	// stateless call.
	Conversation string `json:"conversation,omitempty"`
	// Tool is the tool's name (toolset.RunCommand, ...).
	Tool string `json:"tool"`
	// Args are the tool's arguments, as the model wrote them.
	Args json.RawMessage `json:"args,omitempty"`
	// Answer is the user's answer to the question a previous round of
	// this call left pending (ToolResult.Pending).
	Answer *toolset.Answer `json:"answer,omitempty"`
	// Cwd, when set, is the directory a bash shell the worker has to
	// start for this conversation begins in (the sticky directory the
	// session workflow keeps across worker restarts).
	Cwd string `json:"cwd,omitempty"`
	// Ask is how the caller's host can ask its user about a command the
	// policy wants approved: AskByInterrupt (the zero value) or AskNoOne.
	// Any other value is refused.
	Ask string `json:"ask,omitempty"`
	// ApprovalError, when set, is the error the host's approver returned
	// for the question a previous round of this call left pending: the
	// command is refused as the toolset refuses a command whose
	// Hooks.Approve fails with it, with the same text.
	ApprovalError string `json:"approval_error,omitempty"`
	// CallID, when set, names this round of the call, unique to it: the
	// front door cancels it by SessionCancelSignal when its MCP call ends
	// early, and finds its live output by it.
	CallID string `json:"call_id,omitempty"`
	// Live, with CallID, asks for the call's output as it arrives: the
	// Call activity's heartbeats then carry, under CallID, the latest
	// output by stream offset, which the front door reads from the
	// session workflow's pending activities (no history event per
	// chunk). False: the heartbeats carry only the Progress.
	Live bool `json:"live,omitempty"`
	// SeeAllJobs makes the conversation see every job of the workspace
	// (toolset.Conversation.SeeAllJobs), as the host's does: a stdio MCP
	// client's, or every one of a front door with ShareJobs.
	SeeAllJobs bool `json:"see_all_jobs,omitempty"`
}

// How a tool call's host can ask its user (ToolCall.Ask).
const (
	// AskByInterrupt: a command the policy wants approved ends the call
	// with ToolResult.Pending; the host asks and calls again with
	// ToolCall.Answer, or ToolCall.ApprovalError when asking failed.
	AskByInterrupt = ""
	// AskNoOne: the host can ask no one; such a command is refused as a
	// toolset call whose Hooks can ask no one is (toolset.ErrNoApprover).
	AskNoOne = "none"
)

// ToolResult is what a tool call gave back: exactly what the model reads,
// and the structured result beside it.
type ToolResult struct {
	// Text is the tool's text (toolset.Result.Text).
	Text string `json:"text"`
	// Notices are finished-job notices not yet told (toolset.Result.Notices).
	Notices string `json:"notices,omitempty"`
	// Structured is the structured result as JSON; empty when none.
	Structured json.RawMessage `json:"structured,omitempty"`
	// IsError marks a result the model should read as an error.
	IsError bool `json:"is_error,omitempty"`
	// Pending, when set, means the call awaits the user's answer: nothing
	// ran; call again with the same arguments and ToolCall.Answer.
	Pending *toolset.Question `json:"pending,omitempty"`
	// Cwd is the bash shell's directory after the call, when the call ran
	// a bash command; empty otherwise.
	Cwd string `json:"cwd,omitempty"`
	// Host is the host that ran the call.
	Host string `json:"host"`
}

// ModelText is Text, then the notices, if any, on lines of their own (as
// toolset.Result.ModelText).
func (r ToolResult) ModelText() string {
	return (&toolset.Result{Text: r.Text, Notices: r.Notices}).ModelText()
}
