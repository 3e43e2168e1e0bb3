//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioClient starts `shellcap mcp args...` through bash running prelude
// first (say, a ulimit) and connects a real MCP client to it.
func stdioClient(t *testing.T, prelude string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command("bash", append([]string{"-c", prelude + `; exec "$@"`, "bash", os.Args[0], "mcp"}, args...)...)
	cmd.Env = append(os.Environ(), "SCTEST_BE_CLI=1")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("shellcap mcp %v did not start: %v", args, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPReadOnlyStarts: `shellcap mcp --read-only` starts (initialize
// succeeds) and offers no command tools, instead of exiting because the
// environment probes cannot run.
func TestMCPReadOnlyStarts(t *testing.T) {
	cs := stdioClient(t, "true", "--workspace", t.TempDir(), "--read-only")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 0 {
		t.Fatalf("a read-only workspace offers %d tools", len(tools.Tools))
	}
	if init := cs.InitializeResult(); init == nil || init.ServerInfo.Name != "shellcap" {
		t.Fatalf("initialize: %+v", init)
	}
}

// TestServeReadOnlyStarts: the same for serve, over HTTP.
func TestServeReadOnlyStarts(t *testing.T) {
	_, cs := startServer(t, "serve", lifeMark(t), "--read-only")
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 0 {
		t.Fatalf("a read-only workspace offers %d tools", len(tools.Tools))
	}
}

// TestMCPStartsWithFewFileDescriptors: with 40 open files allowed (the
// server used to need about 56 for its concurrent probes) the server
// starts, runs commands, and the snapshot reports what it could check.
func TestMCPStartsWithFewFileDescriptors(t *testing.T) {
	cs := stdioClient(t, "ulimit -n 40", "--workspace", t.TempDir())
	init := cs.InitializeResult()
	if init == nil || !strings.Contains(init.Instructions, "Tools: ") {
		t.Fatalf("instructions: %+v", init)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "ulimit -n; echo ok"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "ok") {
		t.Fatalf("run_command: %+v %v", res, err)
	}
}

// TestMCPProbesAreNotAsked: a policy that would ask about every command
// (and an approver that asks for all) does not ask about the probes, whose
// versions are in the instructions; start-up does not wait for anyone.
func TestMCPProbesAreNotAsked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, mode := range []string{"ask", "all"} {
		cs := stdioClient(t, "true", "--workspace", t.TempDir(), "--approval-rules", "--approval-mode", mode, "--probe-tools", "git")
		init := cs.InitializeResult()
		if init == nil || !strings.Contains(init.Instructions, "Tools: git 2.") {
			t.Fatalf("approval mode %s: instructions %+v", mode, init)
		}
	}
}
