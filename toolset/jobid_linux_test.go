//go:build linux

package toolset_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// TestHooksJobID: two start_command calls with the same Hooks.JobID, the
// second from a new toolset on the workspace (a restarted worker), start
// one process; both texts give the job's ID, the second says it
// re-attached. The shell tool does the same in background mode, and a
// malformed JobID is refused.
func TestHooksJobID(t *testing.T) {
	ws := t.TempDir()
	first := newToolset(t, shellcap.Options{Workspace: ws}, toolset.Options{}).Conversation("first")
	defer first.Close()
	second := newToolset(t, shellcap.Options{Workspace: ws}, toolset.Options{}).Conversation("second")
	defer second.Close()
	runs := func() int {
		data, _ := os.ReadFile(filepath.Join(ws, "runs.txt"))
		return strings.Count(string(data), "run\n")
	}

	id := jobs.DeriveID("workflow", "start-1")
	hooks := toolset.Hooks{JobID: id}
	args := `{"command":"echo run >> runs.txt; sleep 300"}`
	a := call(t, first, toolset.StartCommand, args, hooks)
	b := call(t, second, toolset.StartCommand, args, hooks)
	if a.IsError || b.IsError {
		t.Fatalf("start_command: %q / %q", a.Text, b.Text)
	}
	for _, r := range []*toolset.Result{a, b} {
		if !strings.Contains(r.Text, "\nID: "+id) {
			t.Fatalf("start_command text %q does not give the ID %s", r.Text, id)
		}
	}
	if strings.Contains(a.Text, "Re-attached") || !strings.HasPrefix(b.Text, "Re-attached to background command:") {
		t.Fatalf("texts %q and %q: want only the second re-attached", a.Text, b.Text)
	}
	sa, sb := a.Structured.(*jobs.StartResult), b.Structured.(*jobs.StartResult)
	if sa.PID == 0 || sa.PID != sb.PID || !sb.Reattached {
		t.Fatalf("structured results %+v and %+v: want one process", sa, sb)
	}
	// The second conversation owns the job it re-attached to.
	if l := call(t, second, toolset.ListCommands, `{}`, toolset.Hooks{}); !strings.Contains(l.Text, id) {
		t.Fatalf("list_commands of the re-attaching conversation: %q", l.Text)
	}
	deadline := time.Now().Add(time.Minute)
	for runs() < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s := call(t, second, toolset.StopCommand, `{"command_id":"`+id+`"}`, toolset.Hooks{}); s.IsError {
		t.Fatalf("stop_command: %q", s.Text)
	}
	if n := runs(); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}

	shellID := jobs.DeriveID("workflow", "shell-1")
	shellArgs := `{"command":"sleep 300","mode":"background"}`
	c := call(t, first, toolset.ShellTool, shellArgs, toolset.Hooks{JobID: shellID})
	d := call(t, second, toolset.ShellTool, shellArgs, toolset.Hooks{JobID: shellID})
	rc, rd := c.Structured.(*jobs.ShellResult), d.Structured.(*jobs.ShellResult)
	if c.IsError || d.IsError || rc.ID != shellID || rd.ID != shellID || rc.PID == 0 || rc.PID != rd.PID || rc.Reattached || !rd.Reattached {
		t.Fatalf("shell calls: %q (%+v) / %q (%+v): want one process", c.Text, rc, d.Text, rd)
	}
	if !strings.Contains(d.Text, "re-attached") || !strings.Contains(d.Text, shellID) {
		t.Fatalf("re-attached shell text %q", d.Text)
	}

	bad := call(t, first, toolset.StartCommand, args, toolset.Hooks{JobID: "not-an-id"})
	if !bad.IsError || !strings.Contains(bad.Text, "is not 32 lower-case hexadecimal digits") {
		t.Fatalf("start_command with a bad JobID: %q", bad.Text)
	}
}

// TestHooksJobIDPromotion: run_command with a ForegroundTimeout runs its
// command as the job Hooks.JobID names: a long command is promoted under
// that ID; the same call repeated from a new toolset on the workspace (a
// restarted worker's) starts no second process and is promoted under the
// same ID; repeated once the job finished, it reports the job's result.
func TestHooksJobIDPromotion(t *testing.T) {
	ws := t.TempDir()
	topts := toolset.Options{ForegroundTimeout: 300 * time.Millisecond}
	first := newToolset(t, shellcap.Options{Workspace: ws}, topts).Conversation("first")
	defer first.Close()
	second := newToolset(t, shellcap.Options{Workspace: ws}, topts).Conversation("second")
	defer second.Close()
	runs := func() int {
		data, _ := os.ReadFile(filepath.Join(ws, "runs.txt"))
		return strings.Count(string(data), "run\n")
	}
	id := jobs.DeriveID("workflow", "run-1")
	hooks := toolset.Hooks{JobID: id}
	args := `{"command":"echo run >> runs.txt; sleep 2; echo done"}`
	for i, c := range []*toolset.Conversation{first, second} {
		r := call(t, c, toolset.RunCommand, args, hooks)
		if r.IsError || !strings.Contains(r.Text, id) || !strings.Contains(r.Text, "[status: running]") {
			t.Fatalf("call %d: %q: want the command promoted as job %s", i+1, r.Text, id)
		}
	}
	w := call(t, second, toolset.WaitCommand, `{"command_id":"`+id+`","timeout_seconds":30}`, toolset.Hooks{})
	if !strings.Contains(w.Text, "done") || !strings.Contains(w.Text, "[status: finished]") {
		t.Fatalf("wait_command: %q", w.Text)
	}
	again := call(t, first, toolset.RunCommand, args, hooks)
	if again.IsError || !strings.Contains(again.Text, "done") || strings.Contains(again.Text, "[status:") {
		t.Fatalf("the call repeated after the job finished: %q: want its result", again.Text)
	}
	if n := runs(); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
}
