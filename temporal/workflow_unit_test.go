package temporal

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
)

// unitEnv is an in-memory test environment that logs nothing.
func unitEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(quietLogger{})
	return s.NewTestWorkflowEnvironment()
}

// registerDenyingRun registers a run activity that refuses every command
// as the policy does, with the text "denied for the model".
func registerDenyingRun(env *testsuite.TestWorkflowEnvironment) {
	env.RegisterActivityWithOptions(func(ctx context.Context, in RunInput) (Result, error) {
		return Result{}, refuse("denied for the model", &shellcap.PolicyError{Kind: shellcap.ErrDenied, Msg: "x"})
	}, activity.RegisterOptions{Name: ActivityRun})
}

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
	env := unitEnv()
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
	env := unitEnv()
	registerDenyingRun(env)
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

// TestRefusalEndsWorkflow (in-memory test server): a workflow that ends
// with a refusal's ApplicationError fails once, non-retryably, with the
// refusal's kind and text, where the *Refusal itself would be retried.
func TestRefusalEndsWorkflow(t *testing.T) {
	for _, tc := range []struct {
		name         string
		asIs         bool
		wantType     string
		nonRetryable bool
	}{
		{"ApplicationError", false, KindDenied, true},
		{"as it is", true, "Refusal", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := unitEnv()
			registerDenyingRun(env)
			env.ExecuteWorkflow(func(ctx workflow.Context) error {
				_, err := Run(ctx, WorkspaceRef{Host: "h", Path: "/w"}, Request{Command: "rm x"})
				var r *Refusal
				if !errors.As(err, &r) {
					return fmt.Errorf("not a refusal: %w", err)
				}
				if tc.asIs {
					return r
				}
				return r.ApplicationError()
			})
			var app *sdktemporal.ApplicationError
			err := env.GetWorkflowError()
			if !errors.As(err, &app) {
				t.Fatalf("workflow error %v is not an application error", err)
			}
			if app.Type() != tc.wantType || app.NonRetryable() != tc.nonRetryable || app.Message() != "denied for the model" {
				t.Fatalf("type %q, non-retryable %v, message %q; want %q, %v and the refusal's text",
					app.Type(), app.NonRetryable(), app.Message(), tc.wantType, tc.nonRetryable)
			}
			if !tc.asIs && !errors.Is(refusalOf(app), shellcap.ErrDenied) {
				t.Error("the application error lost the refusal's sentinel")
			}
		})
	}
}

// concurrentProgressWorkflow runs two commands at once, each with its own
// OnProgress on a context derived from one WithCallOptions.
func concurrentProgressWorkflow(ctx workflow.Context, ws WorkspaceRef) (map[string][]int64, error) {
	ctx = WithCallOptions(ctx, CallOptions{})
	got := map[string][]int64{}
	var futures []workflow.Future
	for _, cmd := range []string{"a", "bbbb"} {
		f, set := workflow.NewFuture(ctx)
		futures = append(futures, f)
		cctx := WithCallOptions(ctx, CallOptions{OnProgress: func(p Progress) { got[cmd] = append(got[cmd], p.StdoutBytes) }})
		workflow.Go(cctx, func(gctx workflow.Context) {
			_, err := Run(gctx, ws, Request{Command: cmd})
			set.Set(nil, err)
		})
	}
	for _, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			return nil, err
		}
	}
	return got, nil
}

// TestConcurrentProgress (in-memory test server): two calls waiting at
// once each get the updates of their own activity, whichever of them
// received the signal.
func TestConcurrentProgress(t *testing.T) {
	env := unitEnv()
	env.RegisterActivityWithOptions(func(ctx context.Context, in RunInput) (Result, error) {
		id := activity.GetInfo(ctx).ActivityID
		for i := range 3 {
			env.SignalWorkflow(ProgressSignal, ProgressUpdate{ActivityID: id, Progress: Progress{StdoutBytes: int64(len(in.Request.Command) * (i + 1))}})
			time.Sleep(20 * time.Millisecond)
		}
		return Result{Command: in.Request.Command}, nil
	}, activity.RegisterOptions{Name: ActivityRun})
	env.ExecuteWorkflow(concurrentProgressWorkflow, WorkspaceRef{Host: "h", Path: "/w"})
	var got map[string][]int64
	if err := env.GetWorkflowResult(&got); err != nil {
		t.Fatal(err)
	}
	for cmd, updates := range got {
		n := int64(len(cmd))
		if len(updates) != 3 || updates[0] != n || updates[1] != 2*n || updates[2] != 3*n {
			t.Errorf("%s: updates %v, want %d, %d, %d", cmd, updates, n, 2*n, 3*n)
		}
	}
	if len(got) != 2 {
		t.Fatalf("updates for %d calls, want 2: %v", len(got), got)
	}
}
