//go:build linux

package jobs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// TestEnvLimitsAndShellPathFlowDown: a job, a shell tool call and a
// promoted command see exactly the environment, the resource limits and
// the shell program Shell.Run gives a command: Env, PassEnv,
// DeniedEnvPatterns, MaxFileBytes, MemoryLimit, CPUTime and ShellPath set
// once on the Shell.
func TestEnvLimitsAndShellPathFlowDown(t *testing.T) {
	bin := t.TempDir()
	wrapper := filepath.Join(bin, "bash")
	if err := os.WriteFile(wrapper, []byte("#!/bin/bash\nexport AUDIT_VIA_SHELLPATH=yes\nexec /bin/bash \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AUDIT_PASSED", "passed")
	t.Setenv("AUDIT_SECRET_TOKEN", "leak")
	sh := shellWith(t, shellcap.Options{
		ShellPath:         wrapper,
		PassEnv:           []string{"AUDIT_PASSED", "AUDIT_SECRET_TOKEN"},
		DeniedEnvPatterns: []string{"*_TOKEN"},
		MaxFileBytes:      1 << 20,
		MemoryLimit:       1 << 32,
		CPUTime:           77 * time.Second,
	})
	// shellWith sets Env to the leak mark; the mark is in every result.
	const cmd = `echo "via=$AUDIT_VIA_SHELLPATH passed=$AUDIT_PASSED token=${AUDIT_SECRET_TOKEN-unset}"; ulimit -f; ulimit -v; ulimit -t`
	ctx := ctxFor(t)
	want, err := sh.Run(ctx, shellcap.Request{Command: cmd})
	if err != nil || want.Err != nil {
		t.Fatalf("Shell.Run: %v %v", err, want.Err)
	}
	// ulimit -f counts 1,024-byte blocks under bash, -v KiB.
	if want.Stdout != "via=yes passed=passed token=unset\n1024\n4194304\n77\n" {
		t.Fatalf("Shell.Run itself: %q", want.Stdout)
	}
	m := managerOn(t, sh, jobs.Options{})
	id := start(t, m, jobs.StartRequest{Command: cmd})
	w, err := m.Wait(ctx, id, time.Minute)
	if err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %+v", err, w)
	}
	got := map[string]string{"job": w.Stdout}
	sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: cmd, Timeout: time.Minute})
	if err != nil || sr.Err != nil || !sr.Finished {
		t.Fatalf("ShellTool: %v %+v", err, sr)
	}
	got["shell tool"] = sr.Output
	rr, err := m.Run(ctx, shellcap.Request{Command: cmd}, time.Minute)
	if err != nil || rr.Result == nil {
		t.Fatalf("Run: %v %+v", err, rr)
	}
	got["Run, finished"] = rr.Result.Stdout
	pr, err := m.Run(ctx, shellcap.Request{Command: "sleep 0.5; " + cmd}, time.Millisecond)
	if err != nil || !pr.Promoted {
		t.Fatalf("Run, promoted: %v %+v", err, pr)
	}
	pw, err := m.Wait(ctx, pr.ID, time.Minute)
	if err != nil || pw.Status != jobs.StatusFinished {
		t.Fatalf("Wait promoted: %v %+v", err, pw)
	}
	got["Run, promoted"] = pr.Stdout + pw.Stdout
	for via, out := range got {
		if out != want.Stdout {
			t.Errorf("%s: %q, Shell.Run: %q", via, out, want.Stdout)
		}
	}
}

// TestRunFinishedKeepsTheShellsStreamBudgets: a command Manager.Run
// finished in the foreground reads like Shell.Run's under the Shell's
// per-stream head and tail budgets (Options.StdoutBudget, StderrBudget).
func TestRunFinishedKeepsTheShellsStreamBudgets(t *testing.T) {
	sh := shellWith(t, shellcap.Options{
		StdoutBudget: shellcap.Budget{Head: 20, Tail: 30},
		StderrBudget: shellcap.Budget{Head: 5, Tail: 5},
	})
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	const cmd = "seq 1 2000; seq 1 500 >&2"
	want, err := sh.Run(ctx, shellcap.Request{Command: cmd})
	if err != nil || !strings.Contains(want.Stdout, "omitted") {
		t.Fatalf("Shell.Run: %v %q", err, want.Stdout)
	}
	got, err := m.Run(ctx, shellcap.Request{Command: cmd}, time.Minute)
	if err != nil || got.Result == nil {
		t.Fatalf("Manager.Run: %v %+v", err, got)
	}
	if got.Result.Stdout != want.Stdout || got.Result.Stderr != want.Stderr {
		t.Errorf("Manager.Run:\n%q\n%q\nShell.Run:\n%q\n%q", got.Result.Stdout, got.Result.Stderr, want.Stdout, want.Stderr)
	}
}
