package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// A result that itself reports a job finished carries no notice about that
// job: not wait_command, not the shell tool.
func TestNoticeNotRepeatedInTheResultAboutTheJob(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	started := text(call(t, cs, mcpserver.StartCommand, map[string]any{"command": "sleep 0.3; echo ended; exit 3"}))
	id := idRE.FindStringSubmatch(started)[1]
	wait := call(t, cs, mcpserver.WaitCommand, map[string]any{"command_id": id, "timeout_seconds": 60})
	if len(wait.Content) != 1 || !strings.HasSuffix(text(wait), "[exit code: 3]") {
		t.Fatalf("wait_command content: %q", blocks(wait))
	}
	shell := call(t, cs, mcpserver.ShellTool, map[string]any{"command": "echo hi; exit 4", "timeout": 60})
	if len(shell.Content) != 1 || !strings.Contains(text(shell), `"exit_code":4`) {
		t.Fatalf("shell content: %q", blocks(shell))
	}
	// Nor does a later result repeat them.
	if later := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "sleep 0.3"}); len(later.Content) != 1 {
		t.Fatalf("later result: %q", blocks(later))
	}
}

// A notice carries the end of the job's output, not only its exit code.
func TestNoticeCarriesTheOutputTail(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	started := text(call(t, cs, mcpserver.StartCommand, map[string]any{"command": "seq 1 5000; echo last-words >&2; exit 3"}))
	id := idRE.FindStringSubmatch(started)[1]
	var res *mcp.CallToolResult
	for deadline := time.Now().Add(20 * time.Second); ; {
		res = call(t, cs, mcpserver.RunCommand, map[string]any{"command": "true"})
		if len(res.Content) > 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	b := blocks(res)
	if len(b) != 2 {
		t.Fatalf("no notice: %q", b)
	}
	first, rest, _ := strings.Cut(b[1], "\n")
	if !strings.HasPrefix(first, "[Background command ") || !strings.HasSuffix(first, "(ID: "+id+") finished with exit code 3.]") ||
		!strings.Contains(rest, "[stdout]\n") || !strings.Contains(rest, "\n4999\n5000\n[stderr]\nlast-words") || len(rest) > 2200 {
		t.Fatalf("notice: %q", b[1])
	}
}

func blocks(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		out = append(out, c.(*mcp.TextContent).Text)
	}
	return out
}
