package temporal

import (
	"context"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/toolset"
)

// ActivityDescribe is the name of the Describe activity, and
// DescribeWorkflowName that of [DescribeWorkflow], which runs it for a
// client (the front door).
const (
	ActivityDescribe     = "shellcap.Describe"
	DescribeWorkflowName = "shellcap.Describe"
)

// DescribeInput is the input of the Describe activity and of
// [DescribeWorkflow].
type DescribeInput struct {
	Workspace WorkspaceRef `json:"workspace"`
}

// Description is what a worker's toolset offers for one workspace: its
// tools' definitions, which state the limits of the workspace's Shell (a
// remote toolset offers them, see toolset.Options.Definitions), and those
// limits.
type Description struct {
	// Tools are the definitions of the tools the workspace's toolset
	// offers, in order; empty (not nil) when it offers none (a read-only
	// workspace).
	Tools []toolset.Definition `json:"tools"`
	// DefaultTimeout and MaxTimeout are the Shell's: the timeout of a
	// command that gives none, and the longest it may ask for.
	DefaultTimeout time.Duration `json:"default_timeout"`
	MaxTimeout     time.Duration `json:"max_timeout"`
	// ForegroundTimeout is how long run_command waits before it promotes
	// a command to a background job; zero never promotes.
	ForegroundTimeout time.Duration `json:"foreground_timeout,omitempty"`
	// Host is the host that described the workspace.
	Host string `json:"host"`
}

// Describe describes the workspace's toolset: the Describe activity.
func (a *Activities) Describe(ctx context.Context, in DescribeInput) (Description, error) {
	w, err := a.ws.lookup(in.Workspace)
	if err != nil {
		return Description{}, err
	}
	sh, _, ts, err := w.get(a.ws.opts)
	if err != nil {
		return Description{}, err
	}
	st := core.Of(sh).Settings
	return Description{Tools: ts.Definitions(), DefaultTimeout: st.DefaultTimeout, MaxTimeout: st.MaxTimeout,
		ForegroundTimeout: w.promotes(), Host: a.host}, nil
}

// Describe describes workspace ws on its host (the Describe activity):
// the definitions of the tools its worker offers and its limits.
func Describe(ctx workflow.Context, ws WorkspaceRef) (Description, error) {
	var out Description
	err := execute(ctx, ws, ActivityDescribe, shortCall, false, func(bool) any { return DescribeInput{Workspace: ws} }, &out)
	return out, err
}

// DescribeWorkflow runs [Describe] for ws on its host's queue, where the
// worker registers it (as DescribeWorkflowName): a client's way to learn
// what the workspace's worker offers (the front door starts it).
func DescribeWorkflow(ctx workflow.Context, in DescribeInput) (Description, error) {
	return Describe(ctx, in.Workspace)
}
