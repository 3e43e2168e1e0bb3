package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/sandbox"
)

// needSandbox skips when this machine cannot enforce the default profile.
// Under CI=true the sandbox is required: a missing layer fails the test.
func needSandbox(t *testing.T) {
	t.Helper()
	if c := sandbox.Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot enforce the sandbox:\n%s", c.Text())
		}
		t.Skipf("no sandbox on this machine:\n%s", c.Text())
	}
}

// TestSandboxAllowlistFlags: --sandbox-network allowlist with
// --sandbox-allow lets a command reach exactly the listed host:port, via
// the proxy, and nothing else.
func TestSandboxAllowlistFlags(t *testing.T) {
	needSandbox(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, "hello through the allowlist")
	}))
	defer srv.Close()
	hostport := strings.TrimPrefix(srv.URL, "http://")
	request := func(target string) string {
		return `exec 3<>/dev/tcp/127.0.0.1/3128 && printf 'GET http://` + target + `/ HTTP/1.1\r\nHost: ` + target + `\r\nConnection: close\r\n\r\n' >&3 && cat <&3`
	}
	ws := t.TempDir()
	flags := []string{"run", "-w", ws, "--sandbox", "workspace-write", "--sandbox-network", "allowlist", "--sandbox-allow", hostport, "--"}
	out, status := cli(t, append(flags, request(hostport))...)
	if status != 0 || !strings.Contains(out, "hello through the allowlist") || hits.Load() != 1 {
		t.Fatalf("allowed destination: %d %q (server saw %d requests)", status, out, hits.Load())
	}
	_, port, _ := strings.Cut(hostport, ":")
	out, _ = cli(t, append(flags, request("localhost:"+port))...)
	if !strings.Contains(out, "403") || hits.Load() != 1 {
		t.Fatalf("unlisted name: %q (server saw %d requests)", out, hits.Load())
	}
	out, status = cli(t, append(flags, "exec 3<>/dev/tcp/"+strings.Replace(hostport, ":", "/", 1))...)
	if status == 0 || hits.Load() != 1 {
		t.Fatalf("direct connection: %d %q", status, out)
	}
}

// TestSandboxedStart: with --sandbox, `shellcap start` runs the job in the
// sandbox: it writes the workspace, not a directory outside it, and stops
// with 143.
func TestSandboxedStart(t *testing.T) {
	needSandbox(t)
	ws, outside := t.TempDir(), t.TempDir()
	out, status := cli(t, "start", "-w", ws, "--sandbox", "workspace-write", "--",
		"echo in > inside.txt; echo out > "+outside+"/outside.txt; echo started; sleep 60")
	id := regexp.MustCompile(`ID: ([0-9a-f]{32})`).FindStringSubmatch(out)
	if status != 0 || id == nil || !strings.HasSuffix(out, "\n[sandbox: workspace-write, network none]\n") {
		t.Fatalf("start: %d %q", status, out)
	}
	var check string
	for deadline := time.Now().Add(time.Minute); !strings.Contains(check, "started"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("check: %q", check)
		}
		check, _ = cli(t, "check", "-w", ws, "--sandbox", "workspace-write", id[1])
	}
	out, status = cli(t, "stop", "-w", ws, "--sandbox", "workspace-write", id[1])
	if status != 0 || !strings.HasSuffix(out, "[stopped]\n[exit code: 143]\n") || !strings.Contains(out, "started") {
		t.Fatalf("stop: %d %q", status, out)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "inside.txt")); err != nil || string(data) != "in\n" {
		t.Fatalf("inside.txt = %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); !os.IsNotExist(err) {
		t.Fatalf("the job wrote outside the workspace: %v", err)
	}
}

// TestSandboxedServerJobs: the MCP server built with a sandbox runs
// start_command, bash and run_command in it.
func TestSandboxedServerJobs(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	profile := "workspace-write"
	srv, closer, err := (&serverFlags{}).build(&config.File{Workspace: &ws, Sandbox: &profile})
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	call := func(name string, args map[string]any) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	started := call("start_command", map[string]any{"command": "echo $$; sleep 60"})
	id := regexp.MustCompile(`ID: ([0-9a-f]{32})`).FindStringSubmatch(started)
	if id == nil || !strings.HasSuffix(started, "\n[sandbox: workspace-write, network none]") {
		t.Fatalf("start_command: %q", started)
	}
	if stop := call("stop_command", map[string]any{"command_id": id[1]}); !strings.HasSuffix(stop, "[stopped]\n[exit code: 143]") {
		t.Fatalf("stop_command: %q", stop)
	}
	// The bash tool's whole shell runs in the sandbox too; state persists.
	outside := t.TempDir()
	if got := call("bash", map[string]any{"command": "export X=kept; echo x > " + outside + "/escaped || echo refused"}); !strings.Contains(got, "refused") {
		t.Fatalf("bash: %q", got)
	}
	if got := call("bash", map[string]any{"command": "echo $X"}); got != "[stdout]\nkept\n" {
		t.Fatalf("bash state: %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !os.IsNotExist(err) {
		t.Fatalf("the bash tool wrote outside the workspace: %v", err)
	}
	if got := call("run_command", map[string]any{"command": "echo x > " + outside + "/escaped2 || echo refused"}); !strings.Contains(got, "refused") {
		t.Fatalf("run_command: %q", got)
	}
}
