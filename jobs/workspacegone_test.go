//go:build linux

package jobs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// The workspace deleted while jobs run: they stay stoppable and report
// their end, and starts refuse the vanished workspace instead of
// re-creating it.
func TestWorkspaceDeletedWhileJobsRun(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := shellWith(t, shellcap.Options{Workspace: ws})
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	first, err := m.Start(ctx, jobs.StartRequest{Command: "echo up; sleep 300"})
	if err != nil || first.ID == "" {
		t.Fatalf("Start: %v, %v", first, err)
	}
	bg, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "sleep 300", Mode: jobs.Background})
	if err != nil || bg.ID == "" {
		t.Fatalf("Shell: %v, %v", bg, err)
	}
	waitOutput(t, m, first.ID, "up")
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}

	check, err := m.Check(ctx, jobs.CheckRequest{ID: first.ID})
	if err != nil || check.Err != nil || check.Status != jobs.StatusRunning || !strings.Contains(check.Text(), "directory (its logs and status) was deleted") {
		t.Fatalf("Check after the workspace went: %q, %v", check.Text(), err)
	}
	if l, err := m.List(ctx); err != nil || len(l.Jobs) != 2 {
		t.Fatalf("List after the workspace went: %q, %v", l.Text(), err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, shellcap.ErrWorkspaceGone) {
			t.Errorf("%s in a vanished workspace: %v, want ErrWorkspaceGone", what, err)
		}
		if _, serr := os.Lstat(ws); !errors.Is(serr, os.ErrNotExist) {
			t.Fatalf("%s re-created the workspace: %v", what, serr)
		}
	}
	_, err = m.Start(ctx, jobs.StartRequest{Command: "echo hi"})
	refused("Start", err)
	_, err = m.ShellTool(ctx, jobs.ShellRequest{Command: "echo hi"})
	refused("Shell", err)
	_, err = m.Run(ctx, shellcap.Request{Command: "echo hi"}, time.Millisecond)
	refused("Run", err)
	if _, err := sh.Run(ctx, shellcap.Request{Command: "echo hi"}); !errors.Is(err, shellcap.ErrWorkspaceGone) {
		t.Fatalf("Shell.Run (the model to follow): %v", err)
	}

	for _, id := range []string{first.ID, bg.ID} {
		stop, err := m.Stop(ctx, jobs.StopRequest{ID: id})
		if err != nil || stop.Err != nil || !stop.Stopped || stop.ExitCode == nil || *stop.ExitCode != 143 {
			t.Fatalf("Stop after the workspace went: %q, %v", stop.Text(), err)
		}
	}
	for _, pid := range []int{first.PID, bg.PID} {
		if syscall.Kill(pid, 0) == nil {
			t.Fatalf("process %d still runs after Stop", pid)
		}
	}

	// A workspace replaced by a file: a clear message, not mkdir's.
	if err := os.WriteFile(ws, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = m.Start(ctx, jobs.StartRequest{Command: "echo hi"})
	if !errors.Is(err, shellcap.ErrWorkspaceGone) || !strings.Contains(err.Error(), "the workspace "+ws+" is no longer a directory") {
		t.Fatalf("Start in a workspace replaced by a file: %v", err)
	}
}
