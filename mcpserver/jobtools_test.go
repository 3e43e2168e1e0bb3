package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// TestPromotionProgress: a run_command that goes through the job Manager
// (a foreground timeout is set) sends its output as progress while the
// model waits: the command prints "line2" only after the client received
// "line1", so it can only finish in the foreground if progress flowed.
// Once a command is promoted, its later output is not sent as progress.
func TestPromotionProgress(t *testing.T) {
	ws := t.TempDir()
	var mu sync.Mutex
	var messages []string
	opened := false
	cs, _ := connectWith(t, shellcap.Options{Workspace: ws}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			messages = append(messages, req.Params.Message)
			if !opened && strings.Contains(strings.Join(messages, ""), "line1\n") {
				opened = true
				if err := os.WriteFile(filepath.Join(ws, "gate"), nil, 0o600); err != nil {
					panic(err)
				}
			}
		},
	}, &mcpserver.Options{ForegroundTimeout: 10 * time.Minute})
	gated := `while [ ! -e gate ]; do sleep 0.01; done; `
	params := &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{"command": "echo line1; " + gated + "echo line2"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if text(res) != "[stdout]\nline1\nline2\n" {
		t.Fatalf("text %q", text(res))
	}
	mu.Lock()
	if !opened {
		t.Fatalf("progress messages %q", messages)
	}
	mu.Unlock()
}

// TestPromotionStopsProgress: after a promotion no progress carries the
// command's later output.
func TestPromotionStopsProgress(t *testing.T) {
	ws := t.TempDir()
	var mu sync.Mutex
	var messages []string
	cs, _ := connectWith(t, shellcap.Options{Workspace: ws}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			messages = append(messages, req.Params.Message)
			mu.Unlock()
		},
	}, &mcpserver.Options{ForegroundTimeout: 200 * time.Millisecond})
	params := &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{
		"command": "echo before; while [ ! -e gate ]; do sleep 0.01; done; echo after; sleep 60"}}
	params.SetProgressToken("tok-2")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`command ID ([0-9a-f]{32})`).FindStringSubmatch(text(res))
	if m == nil {
		t.Fatalf("not promoted: %q", text(res))
	}
	if err := os.WriteFile(filepath.Join(ws, "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		check := text(call(t, cs, mcpserver.CheckCommand, map[string]any{"command_id": m[1]}))
		if strings.Contains(check, "after") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("check_command: %q", check)
		}
	}
	call(t, cs, mcpserver.StopCommand, map[string]any{"command_id": m[1]})
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(messages, ""); strings.Contains(got, "after") {
		t.Fatalf("progress after the promotion: %q", got)
	}
}

// TestJobToolErrorsAreToolErrors: an unknown ID or a timeout out of range
// is a result the model reads with isError set, for every job tool.
func TestJobToolErrorsAreToolErrors(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{}, nil, &mcpserver.Options{})
	unknown := "0123456789abcdef0123456789abcdef"
	cases := []struct {
		tool string
		args map[string]any
	}{
		{mcpserver.CheckCommand, map[string]any{"command_id": unknown}},
		{mcpserver.WaitCommand, map[string]any{"command_id": unknown, "timeout_seconds": 1}},
		{mcpserver.SendInput, map[string]any{"command_id": unknown, "text": "x"}},
		{mcpserver.StopCommand, map[string]any{"command_id": unknown}},
		{mcpserver.WaitCommand, map[string]any{"command_id": unknown, "timeout_seconds": 100000}},
		{mcpserver.WaitCommand, map[string]any{"command_id": unknown, "timeout_seconds": -1}},
		{mcpserver.CheckCommand, map[string]any{}},
	}
	for _, c := range cases {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: protocol error %v", c.tool, c.args, err)
		}
		if !res.IsError || text(res) == "" {
			t.Errorf("%s %v: isError %v, text %q", c.tool, c.args, res.IsError, text(res))
		}
	}
	started := call(t, cs, mcpserver.StartCommand, map[string]any{"command": "sleep 30"})
	id := started.StructuredContent.(map[string]any)["id"].(string)
	if res := call(t, cs, mcpserver.SendInput, map[string]any{"command_id": id, "text": "x"}); !res.IsError {
		t.Errorf("send_input to a job without stdin: isError false, text %q", text(res))
	}
	if res := call(t, cs, mcpserver.CheckCommand, map[string]any{"command_id": id}); res.IsError {
		t.Errorf("check of a running job is an error: %q", text(res))
	}
	call(t, cs, mcpserver.StopCommand, map[string]any{"command_id": id})
}
