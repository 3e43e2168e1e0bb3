//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/temporal/internal/devserver"
)

// envMain makes the test binary run main's run with its arguments: the
// tests start real worker and serve processes this way.
const envMain = "SHELLCAP_TEMPORAL_CMD_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envMain) == "1" {
		// The worker reads SHELLCAP_* as configuration, where an unknown
		// name is an error: the marker is not one.
		os.Unsetenv(envMain)
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(devserver.Main(m))
}

// TestHelp: each command's --help says what it does and lists its flags,
// and exits 0 without dialling anything.
func TestHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"worker", "--help"}, []string{"usage: " + workerSynopsis, "task queue is\nshellcap-host-NAME", "--host string", "--sandbox string"}},
		{[]string{"serve", "-h"}, []string{"usage: shellcap-temporal serve --temporal", "MCP front door", "--stdio", "--token-file string"}},
		{[]string{"help"}, []string{workerSynopsis, serveSynopsis, "serve --help list their flags"}},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		out := stdout.String() + stderr.String()
		for _, w := range tc.want {
			if status != 0 || !strings.Contains(out, w) {
				t.Errorf("%q: status %d, output %q; want 0 and %q", tc.args, status, out, w)
			}
		}
	}
}

// TestUsage: command lines that cannot work are refused with exit status
// 2 and a message naming what is missing, before anything is dialled.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage:"},
		{[]string{"fly"}, `unknown command "fly"`},
		{[]string{"worker", "--host", "h", "--workspace", "/w"}, "--temporal HOST:PORT is required"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--workspace", "/w"}, "--host NAME is required"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--host", "h"}, "at least one --workspace"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--host", "build 1", "--workspace", "/w"}, `--host "build 1": a host name is 1-64 letters`},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--host", "h", "--workspace", "rel/dir"}, "absolute, clean path"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "/no-host"}, "want HOST:PATH"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:relative"}, "must be absolute"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "--stdio", "--token-file", "/t"}, "--token-file is for HTTP"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "extra"}, "unexpected arguments"},
		// The front door runs no commands: the option flags that
		// configure them are the workers'.
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "--sandbox", "full-access"}, "--sandbox configures the commands, and the front door runs none"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "--config=/c.yaml"}, "--config configures the commands"},
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "--token", "0123456789abcdef"}, "--token (server.token) is a setting the Temporal front door does not take"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--host", "h", "--workspace", "/w", "--share-jobs"}, "--share-jobs (server.share_jobs) configures an MCP server"},
		// A run_command's promotion happens on the worker.
		{[]string{"serve", "--temporal", "127.0.0.1:1", "--workspace", "h:/w", "--foreground-timeout", "1s"}, "--foreground-timeout configures the commands, and the front door runs none: give it to `shellcap worker`"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if status != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: status %d, stderr %q; want %d and %q", tc.args, status, stderr.String(), exitUsage, tc.want)
		}
	}
}

// proc is a shellcap-temporal process: the test binary running run.
func proc(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envMain+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			t.Logf("%s stderr:\n%s", args[0], stderr.String())
		}
	})
	return cmd
}

// stop ends a process with SIGTERM and returns its exit status.
func stop(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("%s did not end within 30 s of SIGTERM", cmd.Args[1])
	}
	return cmd.ProcessState.ExitCode()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestWorkerAndServe: `worker` and `serve` processes against a real
// Temporal server: an MCP client of the front door runs a command, which
// lands in the worker's workspace; both end cleanly on SIGTERM.
func TestWorkerAndServe(t *testing.T) {
	srv := devserver.ForTest(t)
	ws := t.TempDir()
	host := "cmd-" + strconv.Itoa(os.Getpid())
	worker := proc(t, "worker", "--temporal", srv.Addr, "--host", host, "--workspace", ws)
	addr := freeAddr(t)
	serve := proc(t, "serve", "--temporal", srv.Addr, "--workspace", host+":"+ws, "--addr", addr)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectHTTP(ctx, t, addr)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo made > here; pwd"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, ws) {
		t.Fatalf("run_command through the processes: %q", text)
	}
	if b, err := os.ReadFile(ws + "/here"); err != nil || string(b) != "made\n" {
		t.Errorf("the command's file in the worker's workspace: %q, %v", b, err)
	}
	cs.Close()
	if st := stop(t, serve); st != 0 {
		t.Errorf("serve exited %d on SIGTERM", st)
	}
	if st := stop(t, worker); st != 0 {
		t.Errorf("worker exited %d on SIGTERM", st)
	}
}

// TestServeStdio: `serve --stdio` is the front door for one MCP client on
// stdin and stdout: its bash shell keeps its directory between calls and
// its commands run in the worker's workspace.
func TestServeStdio(t *testing.T) {
	srv := devserver.ForTest(t)
	ws := t.TempDir()
	host := "stdio-" + strconv.Itoa(os.Getpid())
	proc(t, "worker", "--temporal", srv.Addr, "--host", host, "--workspace", ws)
	cmd := exec.Command(os.Args[0], "serve", "--temporal", srv.Addr, "--workspace", host+":"+ws, "--stdio")
	cmd.Env = append(os.Environ(), envMain+"=1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, step := range []struct{ command, want string }{
		{"mkdir -p sub && cd sub && echo in", "in"},
		{"pwd", ws + "/sub"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": step.command}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || !strings.Contains(text, step.want+"\n") {
			t.Fatalf("bash %q over stdio: %q, want %q", step.command, text, step.want)
		}
	}
}

// TestWorkerForegroundTimeout: a worker started with --foreground-timeout
// 500ms and --max-timeout 123s, behind a `serve` process: the front door
// offers the worker's tools (run_command states at most 123s and its
// promotion); run_command of a command that outlives 500 ms is promoted
// to a job on the worker, whose text names it, and check_command later
// shows its end.
func TestWorkerForegroundTimeout(t *testing.T) {
	srv := devserver.ForTest(t)
	ws := t.TempDir()
	host := "fg-" + strconv.Itoa(os.Getpid())
	proc(t, "worker", "--temporal", srv.Addr, "--host", host, "--workspace", ws, "--foreground-timeout", "500ms", "--max-timeout", "123s")
	addr := freeAddr(t)
	proc(t, "serve", "--temporal", srv.Addr, "--workspace", host+":"+ws, "--addr", addr)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectHTTP(ctx, t, addr)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var run *mcp.Tool
	for _, tool := range tools.Tools {
		if tool.Name == "run_command" {
			run = tool
		}
	}
	schemas, _ := json.Marshal(run)
	if run == nil || !strings.Contains(string(schemas), "at most 123s") || !strings.Contains(string(schemas), `"promoted"`) {
		t.Fatalf("the front door's run_command does not state the worker's limits: %s", schemas)
	}
	text := func(res *mcp.CallToolResult, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		s := res.Content[0].(*mcp.TextContent).Text
		if res.IsError {
			t.Fatalf("an error result: %q", s)
		}
		return s
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "sleep 2; echo done"}})
	promoted := text(res, err)
	var job struct {
		Promoted bool   `json:"promoted"`
		ID       string `json:"id"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &job); err != nil || !job.Promoted || !strings.Contains(promoted, job.ID) || !strings.Contains(promoted, "[status: running]") {
		t.Fatalf("run_command through the worker: %q %s: want it promoted to a job", promoted, raw)
	}
	var checked string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		checked = text(cs.CallTool(ctx, &mcp.CallToolParams{Name: "check_command", Arguments: map[string]any{"command_id": job.ID}}))
		if strings.Contains(checked, "[status: finished]") {
			break
		}
	}
	if !strings.Contains(checked, "done") || !strings.Contains(checked, "[status: finished]") {
		t.Fatalf("check_command of the promoted job: %q", checked)
	}
}

// connectHTTP connects an MCP client to the front door listening on addr,
// retrying until it answers or ctx ends.
func connectHTTP(ctx context.Context, t *testing.T, addr string) *mcp.ClientSession {
	t.Helper()
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}, nil)
		if err == nil {
			return cs
		}
		if ctx.Err() != nil {
			t.Fatalf("the front door never answered: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
