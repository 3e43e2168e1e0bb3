//go:build linux

package temporal

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestNewWorkerRefuses: options no worker could serve are refused, each
// with a message naming the problem.
func TestNewWorkerRefuses(t *testing.T) {
	e := newEnv(t)
	ws := t.TempDir()
	for _, tc := range []struct {
		opts WorkerOptions
		want string
	}{
		{WorkerOptions{Host: ""}, "invalid host"},
		{WorkerOptions{Host: "a b"}, "invalid host"},
		{WorkerOptions{Host: "h", Workspaces: []string{"relative"}}, "absolute, clean"},
		{WorkerOptions{Host: "h", Workspaces: []string{ws + "/../x"}}, "absolute, clean"},
		{WorkerOptions{Host: "h", Workspaces: []string{ws, ws}}, "listed twice"},
		{WorkerOptions{Host: "h", HeartbeatInterval: -time.Second}, "negative HeartbeatInterval"},
	} {
		tc.opts.Jobs.KeyDir = e.keyDir
		if _, err := NewWorker(e.c, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	if _, err := NewWorker(nil, WorkerOptions{Host: "h"}); err == nil {
		t.Error("a worker without a client")
	}
}

// TestWorkerRun: Run serves until the interrupt channel delivers, then
// stops the worker and returns.
func TestWorkerRun(t *testing.T) {
	e := newEnv(t, runWorkflow)
	ref := WorkspaceRef{Host: "run-" + sanitize(t.Name()), Path: t.TempDir()}
	w, err := NewWorker(e.c, testWorkerOptions(ref.Host, ref.Path, e.keyDir, 200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	interrupt := make(chan any, 1)
	done := make(chan error, 1)
	go func() { done <- w.Run(interrupt) }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res Result
	if err := e.start(ctx, runWorkflow, ref, Request{Command: "echo served"}).Get(ctx, &res); err != nil || res.Stdout != "served\n" {
		t.Fatalf("%+v, %v", res, err)
	}
	interrupt <- struct{}{}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not return after the interrupt")
	}
	if _, _, _, err := w.ws.byPath[ref.Path].get(&w.opts); err != errWorkerStopping {
		t.Fatalf("a workspace after Run returned: %v, want the worker stopping", err)
	}
}
