//go:build linux

package temporal

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
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

// TestOpenWorkspace: with WorkerOptions.OpenWorkspace, a workspace's tools
// run on the Shell it returns, built once; a failure is tried again on the
// next call, and a Shell of another directory, or none, is refused.
func TestOpenWorkspace(t *testing.T) {
	ws, other := t.TempDir(), t.TempDir()
	var opened int
	var give func() (WorkspaceSetup, error)
	opts := WorkerOptions{Host: "h", Workspaces: []string{ws}, OpenWorkspace: func(p string) (WorkspaceSetup, error) {
		opened++
		if p != ws {
			t.Errorf("OpenWorkspace(%q), want %q", p, ws)
		}
		return give()
	}}
	set, err := newWorkspaces(&opts)
	if err != nil {
		t.Fatal(err)
	}
	w := set.byPath[ws]
	defer w.close()
	shellOf := func(dir string) *shellcap.Shell {
		sh, err := shellcap.New(shellcap.Options{Workspace: dir})
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	for _, tc := range []struct {
		name string
		give func() (WorkspaceSetup, error)
		want string
	}{
		{"error", func() (WorkspaceSetup, error) { return WorkspaceSetup{}, errors.New("no sandbox today") }, "no sandbox today"},
		{"no shell", func() (WorkspaceSetup, error) { return WorkspaceSetup{}, nil }, "returned no Shell"},
		{"other directory", func() (WorkspaceSetup, error) { return WorkspaceSetup{Shell: shellOf(other)}, nil }, "not for workspace"},
	} {
		give = tc.give
		if _, _, _, err := w.get(&opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	mine := shellOf(ws)
	give = func() (WorkspaceSetup, error) {
		return WorkspaceSetup{Shell: mine, Jobs: jobs.Options{KeyDir: t.TempDir(), MaxJobs: 1}}, nil
	}
	for range 2 {
		sh, m, _, err := w.get(&opts)
		if err != nil || sh != mine || m == nil {
			t.Fatalf("get: %p, %v, want the Shell OpenWorkspace returned (%p)", sh, err, mine)
		}
	}
	if opened != 4 {
		t.Errorf("OpenWorkspace called %d times, want 4 (three failures, then once)", opened)
	}
}
