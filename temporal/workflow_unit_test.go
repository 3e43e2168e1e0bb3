package temporal

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
)

type unitReport struct {
	Updates []Progress
	Result  Result
	Options RunInput
}

// progressOnlyWorkflow runs one command with OnProgress and reports what
// it got.
func progressOnlyWorkflow(ctx workflow.Context, ws WorkspaceRef) (unitReport, error) {
	var rep unitReport
	ctx = WithCallOptions(ctx, CallOptions{OnProgress: func(p Progress) { rep.Updates = append(rep.Updates, p) }})
	r, err := Run(ctx, ws, Request{Command: "make", Timeout: time.Minute})
	rep.Result = r
	return rep, err
}

// TestWorkflowSideProgress (in-memory test server): the workflow-side Run
// schedules the activity on the host's queue with the command's timeout
// plus the grace, asks for progress, and delivers to OnProgress only the
// updates naming its own activity.
func TestWorkflowSideProgress(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger{})
	env := s.NewTestWorkflowEnvironment()
	ws := WorkspaceRef{Host: "h1", Path: "/srv/ws"}
	var seen RunInput
	var info activity.Info
	env.RegisterActivityWithOptions(func(ctx context.Context, in RunInput) (Result, error) {
		seen, info = in, activity.GetInfo(ctx)
		env.SignalWorkflow(ProgressSignal, ProgressUpdate{ActivityID: info.ActivityID, Progress: Progress{StdoutBytes: 7}})
		time.Sleep(50 * time.Millisecond)
		return Result{Command: in.Request.Command, Text: "done", Host: "h1"}, nil
	}, activity.RegisterOptions{Name: ActivityRun})
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(ProgressSignal, ProgressUpdate{ActivityID: "someone-else", Progress: Progress{StdoutBytes: 99}})
	}, 0)
	env.ExecuteWorkflow(progressOnlyWorkflow, ws)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var rep unitReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if !seen.Progress || seen.Workspace != ws || rep.Result.Text != "done" {
		t.Fatalf("the activity got %+v; the workflow %+v", seen, rep)
	}
	if info.TaskQueue != ws.TaskQueue() || info.HeartbeatTimeout != DefaultHeartbeatTimeout {
		t.Fatalf("scheduled on %q with heartbeat timeout %v", info.TaskQueue, info.HeartbeatTimeout)
	}
	if got := info.Deadline.Sub(info.StartedTime); got < time.Minute+DefaultGrace-time.Second || got > time.Minute+DefaultGrace+time.Second {
		t.Fatalf("start-to-close %v, want the timeout plus the grace %v", got, time.Minute+DefaultGrace)
	}
	if len(rep.Updates) != 1 || rep.Updates[0].StdoutBytes != 7 {
		t.Fatalf("OnProgress got %+v, want only its own activity's update", rep.Updates)
	}
}

// TestWorkflowSideRefusal (in-memory test server): an activity's refusal
// comes back as a *Refusal; a workspace reference that is not valid is
// refused before anything is scheduled.
func TestWorkflowSideRefusal(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger{})
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivityWithOptions(func(ctx context.Context, in RunInput) (Result, error) {
		return Result{}, refuse("denied for the model", &shellcap.PolicyError{Kind: shellcap.ErrDenied, Msg: "x"})
	}, activity.RegisterOptions{Name: ActivityRun})
	env.ExecuteWorkflow(func(ctx workflow.Context) (string, error) {
		_, err := Run(ctx, WorkspaceRef{Host: "h", Path: "/w"}, Request{Command: "rm x"})
		var r *Refusal
		if !errors.As(err, &r) || !errors.Is(err, shellcap.ErrDenied) {
			return "", err
		}
		_, err = Run(ctx, WorkspaceRef{Host: "bad host", Path: "rel"}, Request{Command: "true"})
		if !errors.Is(err, ErrUnknownWorkspace) {
			return "", err
		}
		return r.Text, nil
	})
	var text string
	if err := env.GetWorkflowResult(&text); err != nil || text != "denied for the model" {
		t.Fatalf("%q, %v", text, err)
	}
}
