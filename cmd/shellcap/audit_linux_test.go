//go:build linux

package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callToolResult calls a tool and returns its text, its structured content
// and isError.
func callToolResult(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var sc map[string]any
	if data, err := json.Marshal(res.StructuredContent); err == nil {
		json.Unmarshal(data, &sc)
	}
	return text.String(), sc, res.IsError
}

// TestAuditEmptyCommandEveryTool: an empty or whitespace-only command to
// every command tool (run_command, with and without promotion, bash,
// start_command, shell in both modes) is a tool result with isError, the
// text "The command is empty.", no exit code in its structured content,
// and starts no job; the CLI's run and start refuse it with status 125.
func TestAuditEmptyCommandEveryTool(t *testing.T) {
	for _, flags := range [][]string{nil, {"--foreground-timeout", "1s"}} {
		_, cs := startServer(t, "mcp", lifeMark(t), append([]string{"--sandbox", "full-access"}, flags...)...)
		for _, c := range []string{" ", "\t\n"} {
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"run_command", map[string]any{"command": c}},
				{"bash", map[string]any{"command": c}},
				{"start_command", map[string]any{"command": c}},
				{"shell", map[string]any{"command": c}},
				{"shell", map[string]any{"command": c, "mode": "background"}},
			} {
				text, sc, isErr := callToolResult(t, cs, call.tool, call.args)
				where := call.tool + " " + strings.Join(flags, " ")
				if !isErr || !strings.Contains(text, "The command is empty.") {
					t.Errorf("%s %q: isError %v, text %q", where, c, isErr, text)
				}
				if code, ok := sc["exit_code"]; ok && code != nil {
					t.Errorf("%s %q: exit_code %v in %v", where, c, code, sc)
				}
				if r, ok := sc["result"].(map[string]any); ok && r["exit_code"] != nil {
					t.Errorf("%s %q: result.exit_code %v", where, c, r["exit_code"])
				}
			}
		}
		if text, _, _ := callToolResult(t, cs, "list_commands", map[string]any{}); text != "(no background commands)" {
			t.Errorf("empty commands started jobs: %q", text)
		}
	}
	ws := t.TempDir()
	for _, sub := range []string{"run", "start"} {
		if out, status := cli(t, sub, "-w", ws, "--sandbox", "full-access", "--", "  "); status != exitFailure {
			t.Errorf("%s with a blank command: status %d, %q", sub, status, out)
		}
	}
	if out, status := cli(t, "run", "-w", ws, "--sandbox", "full-access", "--json", "--", "  "); status != exitFailure || !strings.Contains(out, `"exit_code": null`) {
		t.Errorf("run --json with a blank command: %d %q", status, out)
	}
}

// TestAuditSettingsReachEveryFrontEnd: the Shell's environment and limits,
// each given once as a flag (--env, --deny-env, --max-file-bytes,
// --cpu-time, --memory-limit), reach the command through run, repl,
// start/wait, and through every command tool of mcp and serve: run_command
// (finished and promoted), bash, start_command and shell.
func TestAuditSettingsReachEveryFrontEnd(t *testing.T) {
	t.Setenv("AUDIT_HIDDEN_TOKEN", "leak")
	flags := []string{"--sandbox", "full-access", "--env", "AUDIT_ENV=yes", "--pass-env", "AUDIT_HIDDEN_TOKEN",
		"--deny-env", "*_TOKEN", "--max-file-bytes", "4096", "--cpu-time", "33s", "--memory-limit", "4GiB"}
	const cmd = `echo "e=$AUDIT_ENV t=${AUDIT_HIDDEN_TOKEN-unset}"; ulimit -f; ulimit -t; ulimit -v`
	const want = "e=yes t=unset\n4\n33\n4194304\n"
	ws := t.TempDir()
	check := func(via, text string) {
		t.Helper()
		if !strings.Contains(text, want) {
			t.Errorf("%s: %q, want it to contain %q", via, text, want)
		}
	}
	out, _ := cli(t, append(append([]string{"run", "-w", ws}, flags...), "--", cmd)...)
	check("run", out)
	out, _ = cliIn(t, cmd+"\n", append([]string{"repl", "-w", ws}, flags...)...)
	check("repl", out)
	id := startJob(t, ws, append(flags, "--", cmd)...)
	out, _ = cli(t, "wait", "-w", ws, id)
	check("start/wait", out)

	for _, kind := range []string{"mcp", "serve"} {
		_, cs := startServer(t, kind, lifeMark(t), append(flags, "--foreground-timeout", "1s")...)
		text, _, _ := callToolResult(t, cs, "run_command", map[string]any{"command": cmd})
		check(kind+" run_command", text)
		text, _, _ = callToolResult(t, cs, "bash", map[string]any{"command": cmd})
		check(kind+" bash", text)
		text, _, _ = callToolResult(t, cs, "shell", map[string]any{"command": cmd})
		check(kind+" shell", text)
		_, sc, _ := callToolResult(t, cs, "start_command", map[string]any{"command": cmd})
		if id, ok := sc["id"].(string); ok {
			text, _, _ = callToolResult(t, cs, "wait_command", map[string]any{"command_id": id, "timeout_seconds": 30})
			check(kind+" start_command", text)
		} else {
			t.Errorf("%s start_command: %v", kind, sc)
		}
		_, sc, _ = callToolResult(t, cs, "run_command", map[string]any{"command": "sleep 1.5; " + cmd})
		if id, ok := sc["id"].(string); ok && sc["promoted"] == true {
			text, _, _ = callToolResult(t, cs, "wait_command", map[string]any{"command_id": id, "timeout_seconds": 30})
			check(kind+" promotion", text)
		} else {
			t.Errorf("%s run_command was not promoted: %v", kind, sc)
		}
	}
}
