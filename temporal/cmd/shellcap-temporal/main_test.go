//go:build linux

package main

import (
	"bytes"
	"context"
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
	var cs *mcp.ClientSession
	for {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		var err error
		if cs, err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}, nil); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the front door never answered: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
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
