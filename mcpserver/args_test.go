package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// tryCall calls a tool and returns its result, or the JSON-RPC error.
func tryCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// TestTimeoutArguments: every timeout argument goes through one decoder:
// a value that would round to no timeout (1e-300, 1e-400) is refused as
// below the minimum instead of becoming the default; one above the tool's
// maximum states it ("at most 600s" for run_command and bash, the job
// tools' own for wait_command and shell); negative, zero and non-numbers
// are refused; all as isError results naming the argument, and for
// run_command and bash as a refused Result (its error in the JSON).
func TestTimeoutArguments(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	id := strings.Repeat("0", 32)
	tools := []struct {
		tool, arg, max string
		base           map[string]any
	}{
		{mcpserver.RunCommand, "timeout_seconds", "at most 600s", map[string]any{"command": "echo ran"}},
		{mcpserver.BashTool, "timeout_seconds", "at most 600s", map[string]any{"command": "echo ran"}},
		{mcpserver.WaitCommand, "timeout_seconds", "at most 600s", map[string]any{"command_id": id}},
		{mcpserver.ShellTool, "timeout", "at most 270s", map[string]any{"command": "echo ran"}},
	}
	values := []struct {
		raw  string
		want string
	}{
		{"1e-300", "at least 0.001s"},
		{"1e-400", "at least 0.001s"},
		{"0.0000001", "at least 0.001s"},
		{"0", "at least 0.001s"},
		{"-1", "at least 0.001s"},
		{"2e6", "(got 2e6s)"},
		{"1e400", "(got 1e400s)"},
		{`"NaN"`, "must be a number of seconds"},
		{`"5"`, "must be a number of seconds"},
	}
	for _, tc := range tools {
		for _, v := range values {
			args := map[string]json.RawMessage{tc.arg: json.RawMessage(v.raw)}
			for k, val := range tc.base {
				args[k], _ = json.Marshal(val)
			}
			res, err := tryCall(t, cs, tc.tool, args)
			if err != nil {
				t.Errorf("%s %s=%s: JSON-RPC error %v", tc.tool, tc.arg, v.raw, err)
				continue
			}
			got := text(res)
			if !res.IsError || !strings.Contains(got, v.want) || strings.Contains(got, "ran") ||
				(!strings.HasPrefix(v.raw, `"`) && (!strings.Contains(got, "("+tc.arg+") must be") || !strings.Contains(got, tc.max))) {
				t.Errorf("%s %s=%s: isError %v, %q; want %q and %q", tc.tool, tc.arg, v.raw, res.IsError, got, v.want, tc.max)
			}
			if tc.tool == mcpserver.RunCommand || tc.tool == mcpserver.BashTool {
				// The refusal shape: a result that says why, like the Shell's
				// (its exit_code is TestRefusalShape's concern).
				if sc := structured(t, res.StructuredContent); !strings.HasPrefix(v.raw, `"`) && sc["error"] != got {
					t.Errorf("%s %s=%s: structured error %v, text %q", tc.tool, tc.arg, v.raw, sc["error"], got)
				}
			}
		}
	}
	// In range, the value is used.
	if res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "sleep 30", "timeout_seconds": 0.2}); !strings.Contains(text(res), "timed out after 0.2s") {
		t.Errorf("timeout_seconds 0.2: %q", text(res))
	}
}

// TestEchoedInputIsCut: what the model sent is repeated in a message at
// most 100 characters long, ending in an ellipsis: an unknown command ID,
// an unknown tool (a JSON-RPC error), a bad mode, an unknown argument, an
// unknown session_id.
func TestEchoedInputIsCut(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	long := strings.Repeat("x", 5000)
	cases := []struct {
		tool string
		args map[string]any
		want string
	}{
		{mcpserver.CheckCommand, map[string]any{"command_id": long}, "unknown command ID"},
		{mcpserver.StopCommand, map[string]any{"command_id": long}, "unknown command ID"},
		{mcpserver.WaitCommand, map[string]any{"command_id": long, "timeout_seconds": 1}, "unknown command ID"},
		{mcpserver.SendInput, map[string]any{"command_id": long, "text": "x"}, "unknown command ID"},
		{mcpserver.ShellTool, map[string]any{"command": "true", "mode": long}, "mode must be"},
		{mcpserver.RunCommand, map[string]any{"command": "true", long: 1}, "unknown argument"},
		{mcpserver.BashTool, map[string]any{"command": "true", "session_id": long}, "Unknown session_id"},
	}
	for _, c := range cases {
		res := call(t, cs, c.tool, c.args)
		got := text(res)
		if !res.IsError || !strings.Contains(got, c.want) || !strings.Contains(got, strings.Repeat("x", 99)+"…") || strings.Contains(got, strings.Repeat("x", 100)) {
			t.Errorf("%s: isError %v, %d characters: %.300q", c.tool, res.IsError, utf8.RuneCountInString(got), got)
		}
	}
	_, err := tryCall(t, cs, long, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "unknown tool") || !strings.Contains(err.Error(), strings.Repeat("x", 99)+"…") || len(err.Error()) > 300 {
		t.Errorf("unknown tool: %.300v", err)
	}
}

// TestHostFailuresAreToolResults: a host-side failure the model can act
// on is a tool result with isError and a precise message, not a JSON-RPC
// error: bash missing from the server's PATH (the bash tool), the
// workspace deleted or replaced by a file while the server runs (every
// command tool), a closed Shell.
func TestHostFailuresAreToolResults(t *testing.T) {
	t.Run("no bash on PATH", func(t *testing.T) {
		t.Setenv("PATH", "/nonexistent")
		cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
		res, err := tryCall(t, cs, mcpserver.BashTool, map[string]any{"command": "echo hi"})
		if err != nil || !res.IsError || !strings.Contains(text(res), "bash session could not start") || !strings.Contains(text(res), "bash") {
			t.Fatalf("bash without bash on PATH: %v %+v", err, res)
		}
	})
	vanished := func(t *testing.T, replace bool) {
		ws := filepath.Join(t.TempDir(), "ws")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		cs, _ := connectWith(t, shellcap.Options{Workspace: ws}, nil, &mcpserver.Options{})
		if res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "true"}); res.IsError {
			t.Fatalf("before: %q", text(res))
		}
		if err := os.RemoveAll(ws); err != nil {
			t.Fatal(err)
		}
		if replace {
			if err := os.WriteFile(ws, []byte("not a directory"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, tool := range []string{mcpserver.RunCommand, mcpserver.BashTool, mcpserver.StartCommand, mcpserver.ShellTool} {
			res, err := tryCall(t, cs, tool, map[string]any{"command": "echo hi"})
			if err != nil {
				t.Errorf("%s: JSON-RPC error %v", tool, err)
				continue
			}
			if !res.IsError || !strings.Contains(text(res), "workspace "+ws+" no longer exists") {
				t.Errorf("%s: isError %v %q", tool, res.IsError, text(res))
			}
		}
		if fi, err := os.Stat(ws); (err == nil) != replace || replace && fi.IsDir() {
			t.Error("a tool recreated the deleted workspace")
		}
	}
	t.Run("workspace deleted", func(t *testing.T) { vanished(t, false) })
	t.Run("workspace replaced by a file", func(t *testing.T) { vanished(t, true) })
	t.Run("closed Shell", func(t *testing.T) {
		sh, srv := newSharedServer(t, shellcap.Options{}, nil)
		cs := clientOn(t, srv, nil, nil)
		sh.Close()
		res, err := tryCall(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo hi"})
		if err != nil || !res.IsError || !strings.Contains(text(res), "shutting down") {
			t.Fatalf("closed Shell: %v %+v", err, res)
		}
	})
}
