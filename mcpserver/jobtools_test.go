package mcpserver_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

var idRE = regexp.MustCompile(`ID: ([0-9a-f]{32})`)

// TestJobTools drives a background command through every job tool.
func TestJobTools(t *testing.T) {
	cs, srv := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	if !slices.Equal(srv.Tools(), []string{"run_command", "start_command", "check_command", "wait_command", "send_input", "stop_command", "list_commands", "shell", "bash"}) {
		t.Fatalf("tools = %v", srv.Tools())
	}
	started := text(call(t, cs, mcpserver.StartCommand, map[string]any{"command": "read line; echo got $line; sleep 60", "stdin": true}))
	m := idRE.FindStringSubmatch(started)
	if m == nil || !strings.HasPrefix(started, "Started background command: 'read line; echo got $line; sleep 60'\nID: ") {
		t.Fatalf("start_command: %q", started)
	}
	id := m[1]
	if got := text(call(t, cs, mcpserver.SendInput, map[string]any{"command_id": id, "text": "hello\n", "eof": true})); got == "" {
		t.Fatal("send_input returned nothing")
	}
	var check string
	for deadline := time.Now().Add(20 * time.Second); ; {
		check = text(call(t, cs, mcpserver.CheckCommand, map[string]any{"command_id": id}))
		if strings.Contains(check, "got hello") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.HasPrefix(check, "[stdout]\ngot hello\n") || !strings.HasSuffix(check, "\n[status: running]") {
		t.Fatalf("check_command: %q", check)
	}
	if list := text(call(t, cs, mcpserver.ListCommands, map[string]any{})); !strings.Contains(list, id) {
		t.Fatalf("list_commands: %q", list)
	}
	wait := text(call(t, cs, mcpserver.WaitCommand, map[string]any{"command_id": id, "timeout_seconds": 0.2}))
	if !strings.HasSuffix(wait, "[status: running]") {
		t.Fatalf("wait_command on a running job: %q", wait)
	}
	stop := text(call(t, cs, mcpserver.StopCommand, map[string]any{"command_id": id}))
	if !strings.Contains(stop, "got hello") || !strings.Contains(stop, "\n[stopped]") {
		t.Fatalf("stop_command: %q", stop)
	}
	unknown := call(t, cs, mcpserver.CheckCommand, map[string]any{"command_id": id})
	if text(unknown) != "[Error: unknown command ID '"+id+"']" {
		t.Fatalf("check after stop: %q", text(unknown))
	}
}

// TestJobFinishedNotice: the next result tells the model that a background
// command ended.
func TestJobFinishedNotice(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	started := text(call(t, cs, mcpserver.StartCommand, map[string]any{"command": "exit 3"}))
	id := idRE.FindStringSubmatch(started)[1]
	var res *mcp.CallToolResult
	for deadline := time.Now().Add(20 * time.Second); ; {
		res = call(t, cs, mcpserver.RunCommand, map[string]any{"command": "true"})
		if len(res.Content) > 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The result's own text stays exactly Result.Text(); the notice is a
	// block of its own.
	if len(res.Content) != 2 || res.Content[0].(*mcp.TextContent).Text != "(no output)" {
		t.Fatalf("content: %+v", res.Content)
	}
	if notice := res.Content[1].(*mcp.TextContent).Text; !strings.HasPrefix(notice, "[") || !strings.Contains(notice, "(ID: "+id+") finished with exit code 3") {
		t.Fatalf("no finished notice: %q", notice)
	}
}

func TestShellTool(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	got := text(call(t, cs, mcpserver.ShellTool, map[string]any{"command": "echo persistent; exit 7", "timeout": 30}))
	if !strings.HasPrefix(got, "persistent\n") || !strings.Contains(got, "kill -- -") || !strings.Contains(got, "Output: ") || !strings.Contains(got, `"exit_code": 7`) && !strings.Contains(got, `"exit_code":7`) {
		t.Fatalf("shell: %q", got)
	}
	if res := call(t, cs, mcpserver.ShellTool, map[string]any{"command": "true", "mode": "sideways"}); !res.IsError {
		t.Fatal("a bad mode was accepted")
	}
}

// TestPromotion: with a foreground timeout, a long run_command becomes a
// background command the model can stop.
func TestPromotion(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{ForegroundTimeout: 300 * time.Millisecond})
	got := text(call(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo begun; sleep 60"}))
	m := regexp.MustCompile(`command ID ([0-9a-f]{32})`).FindStringSubmatch(got)
	if m == nil || !strings.HasPrefix(got, "[stdout]\nbegun\n") || !strings.Contains(got, "check_command") || !strings.HasSuffix(got, "[status: running]") {
		t.Fatalf("promoted run_command: %q", got)
	}
	if stop := text(call(t, cs, mcpserver.StopCommand, map[string]any{"command_id": m[1]})); !strings.Contains(stop, "[stopped]") {
		t.Fatalf("stop: %q", stop)
	}
	if quick := text(call(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo fast"})); quick != "[stdout]\nfast\n" {
		t.Fatalf("quick command under promotion: %q", quick)
	}
}
