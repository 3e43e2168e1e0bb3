package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// ActivityCloseConversation is the activity that ends a conversation on
// its workspace's worker: its bash shell is closed, its remembered
// approvals forgotten; its jobs keep running.
const ActivityCloseConversation = "shellcap.CloseConversation"

// SessionCloseUpdate is the update that ends a conversation of the
// session (see [CloseSession]); its argument is the conversation's name.
const SessionCloseUpdate = "shellcap.session.close"

// CloseInput is the input of the CloseConversation activity.
type CloseInput struct {
	Workspace    WorkspaceRef `json:"workspace"`
	Conversation string       `json:"conversation"`
}

// CloseConversation ends a conversation of a workspace's toolset: the
// CloseConversation activity. Closing one the worker never saw does
// nothing.
func (a *Activities) CloseConversation(ctx context.Context, in CloseInput) error {
	w, err := a.ws.lookup(in.Workspace)
	if err != nil {
		return err
	}
	_, _, ts, err := w.get(a.ws.opts)
	if err != nil {
		return err
	}
	return ts.Conversation(in.Conversation).Close()
}

// closeTimeout bounds one attempt of the CloseConversation activity.
const closeTimeout = 30 * time.Second

// close serves the close update: after the conversation's earlier calls,
// it ends the conversation on the host and forgets its sticky directory.
func (s *sessionRun) close(ctx workflow.Context, conv string) error {
	s.accepted++
	defer func() { s.calls++ }()
	ticket := s.next[conv]
	s.next[conv]++
	if err := workflow.Await(ctx, func() bool { return s.serving[conv] == ticket }); err != nil {
		return err
	}
	defer func() { s.serving[conv]++ }()
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           s.state.Workspace.TaskQueue(),
		StartToCloseTimeout: closeTimeout,
		RetryPolicy:         &sdktemporal.RetryPolicy{MaximumAttempts: 3},
	})
	err := workflow.ExecuteActivity(actx, ActivityCloseConversation, CloseInput{Workspace: s.state.Workspace, Conversation: conv}).Get(ctx, nil)
	delete(s.state.Cwd, conv)
	return refusalOf(err)
}

// validateClose refuses to close the stateless conversation.
func (s *sessionRun) validateClose(ctx workflow.Context, conv string) error {
	if conv == "" {
		return errors.New("shellcap: the stateless conversation cannot be closed")
	}
	return nil
}

// CloseSession ends conversation on the session workflow of ws: the
// conversation's bash shell on the host is closed and its sticky directory
// forgotten; its jobs keep running. A session that does not run has
// nothing to close: that is no error.
func CloseSession(ctx context.Context, c client.Client, ws WorkspaceRef, conversation string) error {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID:   SessionWorkflowID(ws),
		UpdateName:   SessionCloseUpdate,
		Args:         []any{conversation},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(ctx, nil)
	}
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("temporal: closing conversation %s of the session of %s: %w", conversation, ws, err)
	}
	return nil
}
