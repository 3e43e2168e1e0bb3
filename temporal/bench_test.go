//go:build linux

package temporal

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
)

// loopWorkflow runs command n times, one activity after the other.
func loopWorkflow(ctx workflow.Context, ws WorkspaceRef, command string, n int) error {
	for range n {
		if _, err := Run(ctx, ws, Request{Command: command}); err != nil {
			return err
		}
	}
	return nil
}

// noopActivity does nothing: Temporal's own cost of an activity.
func noopActivity(context.Context) error { return nil }

// noopLoopWorkflow runs noopActivity n times on queue.
func noopLoopWorkflow(ctx workflow.Context, queue string, n int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{TaskQueue: queue, StartToCloseTimeout: time.Minute})
	for range n {
		if err := workflow.ExecuteActivity(ctx, "bench.noop").Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkRunTrue measures run("true") through the library and through a
// Run activity on the dev server, in the same run, and reports both and
// their ratio (activity-ns/op over lib-ns/op), with the cost of an activity
// that does nothing (noop-ns/op), Temporal's own floor.
func BenchmarkRunTrue(b *testing.B) {
	e := newEnv(b, loopWorkflow, noopLoopWorkflow)
	ref := e.host("bench-"+sanitize(b.Name()), nil)
	noopQueue := "noop-" + sanitize(b.Name())
	nw := worker.New(e.c, noopQueue, worker.Options{})
	nw.RegisterActivityWithOptions(noopActivity, activity.RegisterOptions{Name: "bench.noop"})
	if err := nw.Start(); err != nil {
		b.Fatal(err)
	}
	defer nw.Stop()
	sh, err := shellcap.New(shellcap.Options{Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// One warm-up of each: the workspace's Shell is built on first use.
	if err := e.start(ctx, loopWorkflow, ref, "true", 1).Get(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := sh.Run(ctx, shellcap.Request{Command: "true"}); err != nil {
			b.Fatal(err)
		}
	}
	lib := time.Since(start)
	start = time.Now()
	if err := e.start(ctx, loopWorkflow, ref, "true", b.N).Get(ctx, nil); err != nil {
		b.Fatal(err)
	}
	act := time.Since(start)
	start = time.Now()
	if err := e.start(ctx, noopLoopWorkflow, noopQueue, b.N).Get(ctx, nil); err != nil {
		b.Fatal(err)
	}
	noop := time.Since(start)
	b.StopTimer()
	libNs, actNs := float64(lib.Nanoseconds())/float64(b.N), float64(act.Nanoseconds())/float64(b.N)
	b.ReportMetric(libNs, "lib-ns/op")
	b.ReportMetric(actNs, "activity-ns/op")
	b.ReportMetric(actNs/libNs, "activity/lib")
	b.ReportMetric(float64(noop.Nanoseconds())/float64(b.N), "noop-ns/op")
}
