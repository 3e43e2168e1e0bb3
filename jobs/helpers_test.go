//go:build linux

package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// testTimeout bounds every call a test makes; generous for loaded machines.
const testTimeout = 2 * time.Minute

func ctxFor(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// newShell returns a Shell on a fresh workspace whose jobs carry the leak
// mark.
func newShell(t testing.TB, workspace string) *shellcap.Shell {
	t.Helper()
	if workspace == "" {
		workspace = t.TempDir()
	}
	_, value, _ := strings.Cut(testMark, "=")
	sh, err := shellcap.New(shellcap.Options{Workspace: workspace, Env: markEnv(value)})
	if err != nil {
		t.Fatalf("shellcap.New: %v", err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// newManager returns a Manager on a fresh workspace. When the test ends it
// stops every job still running and closes the Manager.
func newManager(t testing.TB, opts jobs.Options) *jobs.Manager {
	t.Helper()
	return managerOn(t, newShell(t, ""), opts)
}

func managerOn(t testing.TB, sh *shellcap.Shell, opts jobs.Options) *jobs.Manager {
	t.Helper()
	m, err := jobs.New(sh, opts)
	if err != nil {
		t.Fatalf("jobs.New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if l, err := m.List(ctx); err == nil {
			for _, j := range l.Jobs {
				if j.Status == jobs.StatusRunning {
					_, _ = m.Stop(ctx, jobs.StopRequest{ID: j.ID})
				}
			}
		}
		m.Close()
	})
	return m
}

func start(t testing.TB, m *jobs.Manager, req jobs.StartRequest) string {
	t.Helper()
	res, err := m.Start(ctxFor(t), req)
	if err != nil {
		t.Fatalf("Start(%q): %v", req.Command, err)
	}
	if res.ID == "" {
		t.Fatalf("Start(%q) refused: %s", req.Command, res.Text())
	}
	return res.ID
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitOutput polls Check until the job's stdout contains want.
func waitOutput(t testing.TB, m *jobs.Manager, id, want string) *jobs.JobResult {
	t.Helper()
	var res *jobs.JobResult
	waitFor(t, "output "+want, func() bool {
		var err error
		res, err = m.Check(ctxFor(t), jobs.CheckRequest{ID: id})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		return strings.Contains(res.Stdout+res.Output, want)
	})
	return res
}
