package temporal

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// CallSession makes one tool call on the session workflow of ws (see
// [SessionWorkflow]), starting the workflow on the workspace's host queue
// if it is not running (update-with-start, the running one is used), and
// returns the tool's result. A call the host refused is a ToolResult with
// IsError and the model's text; the error is non-nil when the call could
// not be carried out (ctx ended, the server or the workflow failed).
func CallSession(ctx context.Context, c client.Client, ws WorkspaceRef, call ToolCall) (ToolResult, error) {
	if err := ws.Validate(); err != nil {
		return ToolResult{}, err
	}
	if err := checkPayload(call); err != nil {
		// What JSON cannot carry unchanged is the model's to fix.
		return ToolResult{Text: err.Error(), IsError: true, Host: ws.Host}, nil
	}
	for attempt := 0; ; attempt++ {
		res, err := callSessionOnce(ctx, c, ws, call)
		if err == nil || !retryableSessionError(err) || attempt >= 20 || ctx.Err() != nil {
			return res, err
		}
		// The run closed (continued as new) between the start and the
		// update: the next attempt reaches the new run.
		select {
		case <-ctx.Done():
			return ToolResult{}, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 50 * time.Millisecond):
		}
	}
}

func callSessionOnce(ctx context.Context, c client.Client, ws WorkspaceRef, call ToolCall) (ToolResult, error) {
	start := c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       SessionWorkflowID(ws),
		TaskQueue:                ws.TaskQueue(),
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, SessionWorkflowName, SessionInput{Workspace: ws})
	h, err := c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   SessionCallUpdate,
			Args:         []any{call},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return ToolResult{}, fmt.Errorf("temporal: the session of %s: %w", ws, err)
	}
	var res ToolResult
	if err := h.Get(ctx, &res); err != nil {
		return ToolResult{}, fmt.Errorf("temporal: the session of %s: %w", ws, err)
	}
	return res, nil
}

// retryableSessionError reports an update that reached a run as it
// closed.
func retryableSessionError(err error) bool {
	var notFound *serviceerror.NotFound
	return errors.As(err, &notFound)
}

// SessionStatus returns the state of the session workflow of ws: each
// conversation's sticky directory and the job table. A workspace whose
// session never started is an error (serviceerror.NotFound).
func SessionStatus(ctx context.Context, c client.Client, ws WorkspaceRef) (SessionState, error) {
	v, err := c.QueryWorkflow(ctx, SessionWorkflowID(ws), "", SessionStatusQuery)
	if err != nil {
		return SessionState{}, fmt.Errorf("temporal: the session of %s: %w", ws, err)
	}
	var st SessionState
	if err := v.Get(&st); err != nil {
		return SessionState{}, fmt.Errorf("temporal: the session state of %s: %w", ws, err)
	}
	return st, nil
}
