package toolset_test

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// TestProgressHooks: Hooks.Output gets a command's output as it arrives
// (run_command, shell), and Hooks.Event the shell tool's job events.
func TestProgressHooks(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	conv := ts.Conversation("progress")
	defer conv.Close()
	var mu sync.Mutex
	var out strings.Builder
	var kinds []jobs.ShellEventKind
	hooks := toolset.Hooks{
		Output: func(_ shellcap.Stream, data []byte) {
			mu.Lock()
			out.Write(data)
			mu.Unlock()
		},
		Event: func(e jobs.ShellEvent) {
			mu.Lock()
			kinds = append(kinds, e.Kind)
			mu.Unlock()
		},
	}
	call(t, conv, toolset.RunCommand, `{"command":"echo one; echo two >&2"}`, hooks)
	mu.Lock()
	if got := out.String(); !strings.Contains(got, "one\n") || !strings.Contains(got, "two\n") {
		t.Errorf("run_command output hook got %q", got)
	}
	out.Reset()
	mu.Unlock()
	call(t, conv, toolset.ShellTool, `{"command":"echo three"}`, hooks)
	mu.Lock()
	defer mu.Unlock()
	if got := out.String(); !strings.Contains(got, "three") {
		t.Errorf("shell output hook got %q", got)
	}
	for _, k := range []jobs.ShellEventKind{jobs.ShellStarted, jobs.ShellOutput} {
		if !slices.Contains(kinds, k) {
			t.Errorf("shell events %v lack %s", kinds, k)
		}
	}
}

// TestRunResult: the command tools hand the host the command's own
// result, to map onto its output shape; other tools do not.
func TestRunResult(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	conv := ts.Conversation("run")
	defer conv.Close()
	for _, tc := range []struct {
		tool, args string
		exit       int
		timedOut   bool
	}{
		{toolset.RunCommand, `{"command":"exit 3"}`, 3, false},
		{toolset.BashTool, `{"command":"(exit 4)"}`, 4, false},
		{toolset.RunCommand, `{"command":"sleep 5","timeout_seconds":0.2}`, 0, true},
	} {
		res := call(t, conv, tc.tool, tc.args, toolset.Hooks{})
		if res.Run == nil || res.Run.TimedOut != tc.timedOut || !tc.timedOut && res.Run.ExitCode != tc.exit {
			t.Errorf("%s %s: Run %+v", tc.tool, tc.args, res.Run)
		}
	}
	if res := call(t, conv, toolset.ListCommands, `{}`, toolset.Hooks{}); res.Run != nil {
		t.Errorf("list_commands has a Run: %+v", res.Run)
	}
}
