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
