//go:build linux

package toolset_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// TestHooksOnStart: run_command calls Hooks.OnStart once with the PID of
// the command's shell, which leads its process group; a job tool does not.
func TestHooksOnStart(t *testing.T) {
	conv := newToolset(t, shellcap.Options{Workspace: t.TempDir()}, toolset.Options{}).Conversation("c")
	defer conv.Close()
	var pids []int
	hooks := toolset.Hooks{OnStart: func(pid int) { pids = append(pids, pid) }}
	r := call(t, conv, toolset.RunCommand, `{"command":"echo $$; ps -o pgid= -p $$"}`, hooks)
	fields := strings.Fields(r.Run.Stdout)
	if r.IsError || len(fields) != 2 || len(pids) != 1 {
		t.Fatalf("run_command: %q; OnStart got %v", r.Text, pids)
	}
	if shell, _ := strconv.Atoi(fields[0]); pids[0] != shell || fields[1] != fields[0] {
		t.Fatalf("OnStart got %d; the shell was %s, its group %s", pids[0], fields[0], fields[1])
	}
	s := call(t, conv, toolset.StartCommand, `{"command":"true"}`, hooks)
	if s.IsError || len(pids) != 1 {
		t.Fatalf("start_command: %q; OnStart got %v", s.Text, pids)
	}
}
