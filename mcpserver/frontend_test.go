package mcpserver_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// structured returns a result's structured content as a map.
func structured(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return m
}

// TestBashTimeoutSeconds: the bash tool takes timeout_seconds like
// run_command: the schema states the Shell's range, the value bounds the
// command (the session survives it), and a value out of range gets the
// refusal run_command gives.
func TestBashTimeoutSeconds(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{DefaultTimeout: 10 * time.Second, MaxTimeout: 20 * time.Second}, nil)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != mcpserver.BashTool {
			continue
		}
		props := structured(t, tool.InputSchema)["properties"].(map[string]any)
		ts, ok := props["timeout_seconds"].(map[string]any)
		if !ok || ts["maximum"] != 20.0 || !strings.Contains(ts["description"].(string), "Default 10s, at most 20s") {
			t.Fatalf("bash timeout_seconds schema: %v", props["timeout_seconds"])
		}
	}

	call(t, cs, mcpserver.BashTool, map[string]any{"command": "X=kept"})
	begin := time.Now()
	res := call(t, cs, mcpserver.BashTool, map[string]any{"command": "sleep 30", "timeout_seconds": 0.5})
	if took := time.Since(begin); !strings.Contains(text(res), "timed out") || took > 15*time.Second {
		t.Fatalf("sleep 30 with timeout_seconds 0.5: %q after %v", text(res), took)
	}
	if got := text(call(t, cs, mcpserver.BashTool, map[string]any{"command": "echo $X"})); got != "[stdout]\nkept\n" {
		t.Fatalf("the session did not survive the timeout: %q", got)
	}

	for _, bad := range []float64{-1, 0, 100} {
		r := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "true", "timeout_seconds": bad})
		b := call(t, cs, mcpserver.BashTool, map[string]any{"command": "true", "timeout_seconds": bad})
		if !r.IsError || !b.IsError || text(r) != text(b) {
			t.Errorf("timeout_seconds %v: run_command isError %v %q, bash isError %v %q", bad, r.IsError, text(r), b.IsError, text(b))
		}
	}
}

// TestRefusalShape: a command that did not run is isError with no exit
// code (exit_code null, never 0), in run_command and bash alike; a command
// that ran and exited 3 is not isError (the exit code is in the text and
// the structured result), as the README documents.
func TestRefusalShape(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{}, nil)
	for _, tool := range []string{mcpserver.RunCommand, mcpserver.BashTool} {
		res := call(t, cs, tool, map[string]any{"command": "rm -rf sub"})
		sc := structured(t, res.StructuredContent)
		if code, present := sc["exit_code"]; !res.IsError || (present && code != nil) {
			t.Errorf("%s denied: isError %v, exit_code %v (present %v), text %q", tool, res.IsError, code, present, text(res))
		}
		res = call(t, cs, tool, map[string]any{"command": "exit 3"})
		if sc := structured(t, res.StructuredContent); res.IsError || sc["exit_code"] != 3.0 {
			t.Errorf("%s exit 3: isError %v, exit_code %v", tool, res.IsError, sc["exit_code"])
		}
	}
}

// TestExecutorOption: with an Executor, run_command runs there (here a
// second Shell with its own workspace), and only run_command is offered:
// the other tools would run on the host.
func TestExecutorOption(t *testing.T) {
	other := t.TempDir()
	x, err := shellcap.New(shellcap.Options{Workspace: other, Env: markEnv()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	cs, srv := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{Executor: x})
	if got := srv.Tools(); len(got) != 1 || got[0] != mcpserver.RunCommand {
		t.Fatalf("tools with an Executor: %v", got)
	}
	real, _ := filepath.EvalSymlinks(other)
	if got := text(call(t, cs, mcpserver.RunCommand, map[string]any{"command": "pwd -P"})); got != "[stdout]\n"+real+"\n" {
		t.Fatalf("run_command did not run on the Executor: %q", got)
	}

	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := mcpserver.New(mcpserver.Options{Shell: sh, Executor: x, Tools: []string{mcpserver.BashTool}}); !errors.Is(err, mcpserver.ErrUnknownTool) {
		t.Errorf("bash with an Executor: %v, want ErrUnknownTool", err)
	}
	if _, err := mcpserver.New(mcpserver.Options{Shell: sh, Executor: x, ForegroundTimeout: time.Second}); err == nil {
		t.Error("ForegroundTimeout with an Executor was accepted")
	}
}

// TestShellToolSchemaTakesTheShellsTimeouts: the shell tool's schema states
// the range its Manager enforces (the Shell's DefaultTimeout and
// MaxTimeout within 270 s), and a timeout above it is refused.
func TestShellToolSchemaTakesTheShellsTimeouts(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{DefaultTimeout: 10 * time.Second, MaxTimeout: 20 * time.Second}, nil, &mcpserver.Options{})
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tools.Tools {
		if tool.Name != mcpserver.ShellTool {
			continue
		}
		found = true
		props := structured(t, tool.InputSchema)["properties"].(map[string]any)
		if ts := props["timeout"].(map[string]any); ts["maximum"] != 20.0 {
			t.Errorf("shell timeout maximum %v, want 20", ts["maximum"])
		}
		if !strings.Contains(tool.Description, "default 10s, at most 20s") {
			t.Errorf("shell tool description does not state the Shell's range: %q", tool.Description)
		}
	}
	if !found {
		t.Fatal("no shell tool offered")
	}
	res := call(t, cs, mcpserver.ShellTool, map[string]any{"command": "true", "timeout": 30})
	if !res.IsError || !strings.Contains(text(res), "at most 20s") {
		t.Fatalf("timeout 30 above the Shell's 20s: isError %v %q", res.IsError, text(res))
	}
}
