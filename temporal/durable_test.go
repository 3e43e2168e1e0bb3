//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/toolset"
)

type progressReport struct {
	Updates []Progress
	Result  Result
}

// progressWorkflow runs req and collects the progress it reports.
func progressWorkflow(ctx workflow.Context, ws WorkspaceRef, req Request) (progressReport, error) {
	var rep progressReport
	ctx = WithCallOptions(ctx, CallOptions{OnProgress: func(p Progress) { rep.Updates = append(rep.Updates, p) }})
	r, err := Run(ctx, ws, req)
	rep.Result = r
	return rep, err
}

// TestProgress: the workflow sees the heartbeats of a running command,
// with byte counts that grow before the command ends, and its output's
// tail.
func TestProgress(t *testing.T) {
	e := newEnv(t, progressWorkflow)
	ref := e.host("progress-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var rep progressReport
	cmd := `for i in $(seq 1 12); do echo "line $i"; echo "err $i" >&2; sleep 0.2; done`
	if err := e.start(ctx, progressWorkflow, ref, Request{Command: cmd}).Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	final := rep.Result.StdoutBytes
	var growing int
	var last int64 = -1
	for _, p := range rep.Updates {
		t.Logf("progress after %v: %d+%d bytes, tail %q", p.Elapsed.Round(time.Millisecond), p.StdoutBytes, p.StderrBytes, p.Tail)
		if p.StdoutBytes > last && p.StdoutBytes < final {
			growing++
		}
		last = max(last, p.StdoutBytes)
		if p.StdoutBytes > 0 && !strings.Contains(p.Tail, "line ") {
			t.Errorf("a tail without the output: %q", p.Tail)
		}
	}
	if growing < 2 {
		t.Fatalf("%d updates with growing byte counts before the end (of %d; the command printed %d bytes), want at least 2", growing, len(rep.Updates), final)
	}
}

// cancelWorkflow runs req; it ends when the workflow is cancelled.
func cancelWorkflow(ctx workflow.Context, ws WorkspaceRef, req Request) (Result, error) {
	return Run(ctx, ws, req)
}

// TestCancelKillsGroup: cancelling the workflow cancels the activity, and
// the command's whole process group is gone within the kill grace plus a
// heartbeat interval (and slack) — the times are logged, not asserted as
// performance.
func TestCancelKillsGroup(t *testing.T) {
	e := newEnv(t, cancelWorkflow)
	ref := e.host("cancel-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The shell ignores SIGTERM, so the group lives through the kill grace
	// and SIGKILL ends it; its child sleeps in the same group.
	run := e.start(ctx, cancelWorkflow, ref, Request{Command: `trap '' TERM; echo $$ > pgid; sleep 300 & wait; sleep 300`, Timeout: 5 * time.Minute})
	pgid := atoi(t, waitFile(t, join(ref, "pgid")))
	if !groupAlive(pgid) {
		t.Fatalf("group %d is not running", pgid)
	}
	start := time.Now()
	if err := e.c.CancelWorkflow(ctx, run.GetID(), run.GetRunID()); err != nil {
		t.Fatal(err)
	}
	for groupAlive(pgid) {
		if time.Since(start) > time.Second+200*time.Millisecond+20*time.Second {
			t.Fatalf("group %d still runs %v after the cancellation (kill grace 1s, heartbeat 200ms)", pgid, time.Since(start))
		}
		time.Sleep(10 * time.Millisecond)
	}
	gone := time.Since(start)
	err := run.Get(ctx, nil)
	var canceled *sdktemporal.CanceledError
	if !errors.As(err, &canceled) {
		t.Fatalf("the workflow ended with %v, want cancelled", err)
	}
	t.Logf("group %d gone %v after CancelWorkflow (kill grace 1s, heartbeat interval 200ms); the workflow saw the cancellation %v after", pgid, gone.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
}

// crashWorkflow runs req with a short heartbeat timeout and quick
// retries, through Run, or with viaCall through Call of run_command.
func crashWorkflow(ctx workflow.Context, ws WorkspaceRef, req Request, viaCall bool) (string, error) {
	ctx = WithCallOptions(ctx, CallOptions{
		HeartbeatTimeout: 2 * time.Second,
		RetryPolicy:      &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 3},
	})
	if viaCall {
		args, _ := json.Marshal(map[string]any{"command": req.Command, "timeout_seconds": req.Timeout.Seconds()})
		r, err := Call(ctx, ws, ToolCall{Tool: toolset.RunCommand, Args: args})
		return r.Text, err
	}
	r, err := Run(ctx, ws, req)
	return r.Text, err
}

// TestWorkerKilledMidCommand: a worker killed with SIGKILL mid-command
// (its Shell without DieWithProcess, so the command survives it) is
// restarted; the restarted worker's sweep kills the first attempt's
// orphaned process group, and the command runs again, once, to the end.
// The same through Call of run_command.
func TestWorkerKilledMidCommand(t *testing.T) {
	for _, viaCall := range []bool{false, true} {
		name := "Run"
		if viaCall {
			name = "Call"
		}
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, crashWorkflow)
			ref := WorkspaceRef{Host: "crash-" + sanitize(t.Name()), Path: t.TempDir()}
			first := e.startWorkerProcess(ref)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := `echo run >> runs; n=$(wc -l < runs); echo $$ > pgid.$n; if [ "$n" = 1 ]; then sleep 300; fi; echo "done $n"`
			run := e.start(ctx, crashWorkflow, ref, Request{Command: cmd, Timeout: 5 * time.Minute}, viaCall)
			pgid := atoi(t, waitFile(t, join(ref, "pgid.1")))
			first.kill()
			time.Sleep(100 * time.Millisecond)
			if !groupAlive(pgid) {
				t.Fatalf("the first attempt's group %d died with its worker: the test needs a worker without DieWithProcess", pgid)
			}
			records, _ := os.ReadDir(join(ref, ".shellcap/temporal/foreground"))
			if len(records) != 1 {
				t.Fatalf("%d foreground records while the command runs, want 1", len(records))
			}
			e.startWorkerProcess(ref)
			if groupAlive(pgid) {
				t.Fatalf("the first attempt's group %d outlived the restarted worker's sweep", pgid)
			}
			var text string
			if err := run.Get(ctx, &text); err != nil {
				t.Fatal(err)
			}
			if text != "[stdout]\ndone 2\n" || lines(t, join(ref, "runs")) != 2 {
				t.Fatalf("after the restart: %q, %d runs; want the command run once more", text, lines(t, join(ref, "runs")))
			}
			if records, _ := os.ReadDir(join(ref, ".shellcap/temporal/foreground")); len(records) != 0 {
				t.Fatalf("%d foreground records left after the command ended", len(records))
			}
		})
	}
}

// startWorkflow starts a job, then stops it.
func startWorkflow(ctx workflow.Context, ws WorkspaceRef, req StartRequest) ([]Job, error) {
	ctx = WithCallOptions(ctx, CallOptions{RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 3}})
	job, err := Start(ctx, ws, req)
	if err != nil {
		return nil, err
	}
	list, err := List(ctx, ws)
	if err != nil {
		return nil, err
	}
	if _, err := Stop(ctx, ws, job.ID); err != nil {
		return nil, err
	}
	return []Job{job, {Text: list.Text}}, nil
}

// TestRetriedStartReattaches: the first attempt of a Start fails after the
// job started (an interceptor fails it); the retry re-attaches to that
// job: one process, Job.Reattached.
func TestRetriedStartReattaches(t *testing.T) {
	counter := &attemptCounter{failFirst: ActivityStart}
	e := newEnv(t, startWorkflow)
	ref := e.host("reattach-"+sanitize(t.Name()), func(o *WorkerOptions) { o.Worker.Interceptors = append(o.Worker.Interceptors, counter) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []Job
	if err := e.start(ctx, startWorkflow, ref, StartRequest{Command: "echo started >> starts; sleep 300"}).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	job, list := got[0], got[1].Text
	if n := counter.count(ActivityStart); n != 2 {
		t.Fatalf("%d attempts of the start, want 2 (the first failed after the job started)", n)
	}
	if !job.Reattached || !strings.Contains(job.Text, job.ID) || !strings.Contains(job.Text, "Re-attached") {
		t.Fatalf("the retried start: %+v, want it re-attached to the first attempt's job", job)
	}
	waitFile(t, join(ref, "starts"))
	if n := lines(t, join(ref, "starts")); n != 1 || strings.Count(list, "\n")+1 != 1 {
		t.Fatalf("the command ran %d times; the list:\n%s", n, list)
	}
	if groupAlive(job.PGID) {
		time.Sleep(2 * time.Second)
		if groupAlive(job.PGID) {
			t.Fatalf("the job's group %d outlived its Stop", job.PGID)
		}
	}
}

// groupAlive reports whether a live (non-zombie) process is in group
// pgid: the processes a sweep or a cancellation kills may stay zombies a
// while, until their new parent reaps them.
func groupAlive(pgid int) bool {
	members, err := proc.GroupMembers(pgid, 0)
	return err == nil && len(members) > 0
}

// TestWorkerStopRetries: a worker stopped mid-command stops the command's
// group and fails the attempt as retryable; the call runs again on the
// next worker of the host, to the end.
func TestWorkerStopRetries(t *testing.T) {
	e := newEnv(t, crashWorkflow)
	host := "stop-" + sanitize(t.Name())
	ws := t.TempDir()
	ref := WorkspaceRef{Host: host, Path: ws}
	o := testWorkerOptions(host, ws, e.keyDir, 200*time.Millisecond)
	w1 := e.startWorker(o)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := `echo run >> runs; n=$(wc -l < runs); echo $$ > pgid.$n; if [ "$n" = 1 ]; then sleep 300; fi; echo "done $n"`
	run := e.start(ctx, crashWorkflow, ref, Request{Command: cmd, Timeout: 5 * time.Minute}, false)
	pgid := atoi(t, waitFile(t, join(ref, "pgid.1")))
	w1.Stop()
	// The command's context ends with the worker: its group gets SIGTERM
	// (then SIGKILL after the kill grace, 1 s).
	for deadline := time.Now().Add(10 * time.Second); groupAlive(pgid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the first attempt's group %d outlived its worker's Stop by 10 s", pgid)
		}
	}
	w2 := e.startWorker(o)
	defer w2.Stop()
	var text string
	if err := run.Get(ctx, &text); err != nil {
		t.Fatal(err)
	}
	if text != "[stdout]\ndone 2\n" || lines(t, join(ref, "runs")) != 2 {
		t.Fatalf("after the stop: %q, %d runs; want the command run once more", text, lines(t, join(ref, "runs")))
	}
}

// TestDefaultShell: a worker with the default Shell options runs commands,
// with DieWithProcess on Linux.
func TestDefaultShell(t *testing.T) {
	if !defaultShellOptions().DieWithProcess || defaultShellOptions().Approve == nil {
		t.Fatalf("default Shell options %+v", defaultShellOptions())
	}
	e := newEnv(t, runWorkflow)
	ref := e.host("default-"+sanitize(t.Name()), func(o *WorkerOptions) { o.Shell = nil })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res Result
	if err := e.start(ctx, runWorkflow, ref, Request{Command: "echo $((6*7))"}).Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "42\n" {
		t.Fatalf("%+v", res)
	}
}
