package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// requireTool finds a command the test needs. Missing, the test skips when
// run by hand and fails under CI, where scripts/test installs everything.
func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: %v", name, err)
		}
		t.Skipf("%s not installed: %v", name, err)
	}
	return p
}

// tsClient runs testdata/tsclient/client.mjs with args and decodes its report.
func tsClient(t *testing.T, env []string, args ...string) map[string]any {
	t.Helper()
	node := requireTool(t, "node")
	dir, _ := filepath.Abs("testdata/tsclient")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		npm := requireTool(t, "npm")
		install := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--silent")
		install.Dir = dir
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var report map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("client.mjs printed no JSON: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	return report
}

// checkReport checks what the TypeScript client saw.
func checkReport(t *testing.T, report map[string]any) {
	t.Helper()
	if got := report["run"]; got != "[stdout]\nline1\nline2\nline3\n\n[exit code: 2]" {
		t.Errorf("run_command text = %q", got)
	}
	if got := report["runExitCode"]; got != 2.0 {
		t.Errorf("structured exit code = %v", got)
	}
	if got := report["progress"]; got != "line1\nline2\nline3\n" {
		t.Errorf("progress messages = %q", got)
	}
	denied, _ := report["denied"].(map[string]any)
	if denied["isError"] != true || denied["text"] != "Command 'rm' is denied." {
		t.Errorf("denial = %v", denied)
	}
	tools, _ := report["tools"].([]any)
	if !slices.Contains(tools, any("run_command")) || !slices.Contains(tools, any("start_command")) {
		t.Errorf("tools = %v", tools)
	}
	if _, ok := report["job"]; !ok {
		t.Errorf("the job round trip did not run")
	}
	if got := report["bash"]; got != "[stdout]\nkept d\n" {
		t.Errorf("bash session = %q", got)
	}
	if job, ok := report["job"].(map[string]any); ok {
		// Sandboxed by default: on Linux the line is there even where
		// the sandbox runs degraded (the result then lists downgrades).
		if s, _ := job["started"].(string); s != "Started background command: 'echo job-out; sleep 60'\nID: <id>\n[sandbox: workspace-write, network none]" {
			t.Errorf("start_command = %q", s)
		}
		if s, _ := job["check"].(string); !strings.HasPrefix(s, "[stdout]\njob-out\n") || !strings.HasSuffix(s, "[status: running]") {
			t.Errorf("check_command = %q", s)
		}
		if s, _ := job["stop"].(string); !strings.Contains(s, "[stopped]") {
			t.Errorf("stop_command = %q", s)
		}
	}
}

func TestTypeScriptClientStdio(t *testing.T) {
	report := tsClient(t, []string{"SCTEST_BE_CLI=1"}, "stdio", os.Args[0], "mcp", "--workspace", t.TempDir())
	checkReport(t, report)
}

func TestTypeScriptClientHTTP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const token = "tok-0123456789abcdef"
	// The token comes in the environment, which the server leaves at start.
	server := cliCommand("serve", "--addr", addr, "--workspace", t.TempDir())
	server.Env = append(server.Env, "SHELLCAP_TOKEN="+token)
	server.Stderr = os.Stderr
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		server.Process.Signal(os.Interrupt)
		server.Wait()
	}()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never listened")
		}
		time.Sleep(20 * time.Millisecond)
	}
	report := tsClient(t, []string{"SHELLCAP_TOKEN=" + token}, "http", "http://"+addr+"/")
	checkReport(t, report)
	if got := report["otherSession"]; got != "[stdout]\nunset\n" {
		t.Errorf("a second HTTP session's bash = %q, want its own shell", got)
	}
}
