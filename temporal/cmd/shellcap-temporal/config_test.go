//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap/config"
	shtemporal "github.com/shellcap/shellcap/temporal"
	"github.com/shellcap/shellcap/temporal/internal/devserver"
)

// lockedBuffer is a process's stderr, read while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// userEnv is an environment with no SHELLCAP_* variable and a home and
// configuration directory of the test's own, so that no configuration of
// the machine's user reaches the worker; extra is added.
func userEnv(t *testing.T, extra ...string) (env []string, configDir string) {
	t.Helper()
	home := t.TempDir()
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SHELLCAP_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	configDir = filepath.Join(home, ".config")
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+configDir, envMain+"=1")
	return append(env, extra...), configDir
}

// startWorker starts a worker process for host serving ws, with env and
// the extra flags, and returns its stderr.
func startWorker(t *testing.T, env []string, addr, host, ws string, flags ...string) *lockedBuffer {
	t.Helper()
	args := append([]string{"worker", "--temporal", addr, "--host", host, "--workspace", ws, "--log-level", "info"}, flags...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = env
	cmd.Dir = t.TempDir()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st := stop(t, cmd); st != 0 {
			t.Errorf("worker %s exited %d on SIGTERM", host, st)
		}
		if t.Failed() {
			t.Logf("worker %s stderr:\n%s", host, stderr.String())
		}
	})
	return stderr
}

// runResult is the part of run_command's structured result the tests read.
type runResult struct {
	ExitCode *int `json:"exit_code"`
	Stdout   string
	Sandbox  *struct {
		Profile string `json:"profile"`
		Network string `json:"network"`
	} `json:"sandbox"`
}

// runOn runs command with run_command on the session workflow of ws, as
// the front door does, and returns the result.
func runOn(t *testing.T, srv *devserver.Server, ws shtemporal.WorkspaceRef, command string) (shtemporal.ToolResult, runResult) {
	t.Helper()
	res := callOn(t, srv, ws, "run_command", map[string]any{"command": command})
	var rr runResult
	if len(res.Structured) > 0 {
		if err := json.Unmarshal(res.Structured, &rr); err != nil {
			t.Fatalf("structured result %s: %v", res.Structured, err)
		}
	}
	return res, rr
}

// callOn makes one tool call on the session workflow of ws.
func callOn(t *testing.T, srv *devserver.Server, ws shtemporal.WorkspaceRef, tool string, args map[string]any) shtemporal.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, _ := json.Marshal(args)
	res, err := shtemporal.CallSession(ctx, srv.Dial(t), ws, shtemporal.ToolCall{Conversation: "test", Tool: tool, Args: raw})
	if err != nil {
		t.Fatalf("%s %s on %s: %v", tool, raw, ws, err)
	}
	return res
}

// jobOn runs command as a background job on ws (start_command, then
// wait_command until it ends) and returns wait_command's text.
func jobOn(t *testing.T, srv *devserver.Server, ws shtemporal.WorkspaceRef, command string) string {
	t.Helper()
	res := callOn(t, srv, ws, "start_command", map[string]any{"command": command})
	var started struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(res.Structured, &started); err != nil || started.ID == "" || res.IsError {
		t.Fatalf("start_command: %q %s", res.Text, res.Structured)
	}
	return callOn(t, srv, ws, "wait_command", map[string]any{"command_id": started.ID, "timeout_seconds": 30}).Text
}

// listen accepts connections on a loopback port until the test ends and
// counts them.
func listen(t *testing.T) (port int, accepted func() int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	n := 0
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// escapeCommand writes a file outside the workspace and connects to a
// port of the host's loopback: what the default sandbox forbids.
func escapeCommand(outside string, port int) string {
	return "echo out > " + outside + "/escaped; " +
		"if (exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(port) + ") 2>/dev/null; then echo net=open; else echo net=refused; fi"
}

// TestWorkerSandboxedByDefault: a worker given no sandbox flag runs its
// commands in the workspace-write sandbox without network, as `shellcap
// serve` does: a file written outside the workspace does not reach the
// host, a port on the host's loopback is not reached, the result says
// what was enforced, and the worker logs it. Calibration: the same command
// on a worker started with --sandbox full-access escapes both ways.
func TestWorkerSandboxedByDefault(t *testing.T) {
	srv := devserver.ForTest(t)
	for _, tc := range []struct {
		name    string
		flags   []string
		escapes bool
		profile string
		logged  string
	}{
		{"default", nil, false, "workspace-write", "Commands run in a sandbox (workspace-write profile)"},
		{"full-access", []string{"--sandbox", "full-access"}, true, "", "Commands run without a sandbox (full-access)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			host := "sbx-" + tc.name + "-" + strconv.Itoa(os.Getpid())
			env, _ := userEnv(t)
			stderr := startWorker(t, env, srv.Addr, host, ws, tc.flags...)
			port, accepted := listen(t)
			res, rr := runOn(t, srv, shtemporal.WorkspaceRef{Host: host, Path: ws}, escapeCommand(outside, port))
			_, statErr := os.Stat(filepath.Join(outside, "escaped"))
			if escaped := statErr == nil; escaped != tc.escapes {
				t.Errorf("the file written outside the workspace reached the host: %v, want %v (result %q)", escaped, tc.escapes, res.Text)
			}
			if open := strings.Contains(res.Text, "net=open") && accepted() > 0; open != tc.escapes {
				t.Errorf("the host's loopback was reached: %v (%d connections), want %v (result %q)", open, accepted(), tc.escapes, res.Text)
			}
			switch {
			case tc.profile != "" && (rr.Sandbox == nil || rr.Sandbox.Profile != tc.profile || rr.Sandbox.Network != "none"):
				t.Errorf("the result's sandbox %+v, want profile %s without network (%s)", rr.Sandbox, tc.profile, res.Structured)
			case tc.profile == "" && rr.Sandbox != nil && rr.Sandbox.Profile != "full-access":
				t.Errorf("the result's sandbox %+v under --sandbox full-access", rr.Sandbox)
			}
			// The workspace's background jobs run in its sandbox too.
			text := jobOn(t, srv, shtemporal.WorkspaceRef{Host: host, Path: ws}, "echo job > "+outside+"/job-escaped")
			if _, err := os.Stat(filepath.Join(outside, "job-escaped")); (err == nil) != tc.escapes {
				t.Errorf("a background job's file outside the workspace reached the host: %v, want %v (%q)", err == nil, tc.escapes, text)
			}
			if !strings.Contains(stderr.String(), tc.logged) || !strings.Contains(stderr.String(), "workspace="+ws) {
				t.Errorf("the worker's log does not say, for workspace %s, %q:\n%s", ws, tc.logged, stderr.String())
			}
		})
	}
}

// TestWorkerConfigSources: the worker reads the configuration as `shellcap
// serve` does: a policy denial in the file --config names, or in a
// SHELLCAP_* variable, refuses the command (it does not run); the same
// command runs on a worker without them.
func TestWorkerConfigSources(t *testing.T) {
	srv := devserver.ForTest(t)
	denyEnv := ""
	for _, k := range config.Keys() {
		if k.Key == "policy.denied_commands" {
			denyEnv = k.Env
		}
	}
	if denyEnv == "" {
		t.Fatal("no variable for policy.denied_commands")
	}
	policyFile := filepath.Join(t.TempDir(), "worker.yaml")
	if err := os.WriteFile(policyFile, []byte("policy:\n  denied_commands: [touch]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		env    []string
		flags  []string
		denied bool
	}{
		{"none", nil, nil, false},
		{"config-flag", nil, []string{"--config", policyFile}, true},
		{"config-env", []string{config.EnvConfigFile + "=" + policyFile}, nil, true},
		{"variable", []string{denyEnv + "=touch"}, nil, true},
		// The flags override the file: --no-deny-list lifts its denial.
		{"flag-over-file", nil, []string{"--config", policyFile, "--no-deny-list"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			host := "cfg-" + tc.name + "-" + strconv.Itoa(os.Getpid())
			env, _ := userEnv(t, tc.env...)
			startWorker(t, env, srv.Addr, host, ws, tc.flags...)
			res, rr := runOn(t, srv, shtemporal.WorkspaceRef{Host: host, Path: ws}, "touch made")
			_, statErr := os.Stat(filepath.Join(ws, "made"))
			ran := statErr == nil
			if ran == tc.denied {
				t.Errorf("touch ran: %v, want %v (result %q)", ran, !tc.denied, res.Text)
			}
			if tc.denied && (!res.IsError || rr.ExitCode != nil || !strings.Contains(res.Text, "touch")) {
				t.Errorf("the denial: is_error %v, has an exit code %v, text %q; want an error naming touch, no exit code", res.IsError, rr.ExitCode != nil, res.Text)
			}
		})
	}
}

// TestWorkerWorkspaceFile: a workspace's own shellcap.yaml, which its
// commands can write, may not loosen the worker's configuration: its
// `sandbox: full-access` is ignored (and the worker logs so) until the
// user trusts the file; trusted, it applies. Its tightening keys apply
// either way.
func TestWorkerWorkspaceFile(t *testing.T) {
	srv := devserver.ForTest(t)
	for _, tc := range []struct {
		name    string
		trusted bool
	}{{"untrusted", false}, {"trusted", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			file := filepath.Join(ws, "shellcap.yaml")
			if err := os.WriteFile(file, []byte("sandbox: full-access\npolicy:\n  deny_patterns: ['^rm ']\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			env, configDir := userEnv(t)
			if tc.trusted {
				store := &config.TrustStore{Path: filepath.Join(configDir, "shellcap", config.TrustFileName)}
				if err := os.MkdirAll(filepath.Dir(store.Path), 0o700); err != nil {
					t.Fatal(err)
				}
				if _, _, err := store.Trust(file); err != nil {
					t.Fatal(err)
				}
			}
			host := "wsf-" + tc.name + "-" + strconv.Itoa(os.Getpid())
			stderr := startWorker(t, env, srv.Addr, host, ws)
			ref := shtemporal.WorkspaceRef{Host: host, Path: ws}
			res, _ := runOn(t, srv, ref, "echo out > "+outside+"/escaped")
			_, statErr := os.Stat(filepath.Join(outside, "escaped"))
			if escaped := statErr == nil; escaped != tc.trusted {
				t.Errorf("a write outside the workspace reached the host: %v, want %v (result %q)", escaped, tc.trusted, res.Text)
			}
			ignored := strings.Contains(stderr.String(), "ignored a key of an untrusted workspace file") && strings.Contains(stderr.String(), "key=sandbox")
			if ignored == tc.trusted {
				t.Errorf("the worker logged the ignored sandbox key: %v, want %v:\n%s", ignored, !tc.trusted, stderr.String())
			}
			if err := os.WriteFile(filepath.Join(ws, "victim"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			res, _ = runOn(t, srv, ref, "rm victim")
			if _, err := os.Stat(filepath.Join(ws, "victim")); err != nil || !res.IsError {
				t.Errorf("the workspace file's deny pattern was not honoured: %q (victim: %v)", res.Text, err)
			}
		})
	}
}

// TestWorkerRefusesWhatItCannotHonour: a setting the worker cannot honour
// stops it at start with a message naming it, before it polls: a profile
// named but unknown, a container executor, a flag of the MCP server.
func TestWorkerRefusesWhatItCannotHonour(t *testing.T) {
	for _, tc := range []struct {
		flags  []string
		status int
		want   string
	}{
		{[]string{"--sandbox", "no-such-profile"}, exitUsage, "unknown sandbox profile"},
		{[]string{"--config", "/no/such/file.yaml"}, exitFailure, "/no/such/file.yaml"},
		{[]string{"--executor", "container", "--image", "alpine"}, exitFailure, "not in a container"},
		{[]string{"--addr", "127.0.0.1:1"}, exitUsage, "--addr (server.addr) configures an MCP server"},
		{[]string{"--tools", "bash"}, exitUsage, "--tools (tools) configures an MCP server"},
	} {
		env, _ := userEnv(t)
		cmd := exec.Command(os.Args[0], append([]string{"worker", "--temporal", "127.0.0.1:1", "--host", "h", "--workspace", t.TempDir()}, tc.flags...)...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != tc.status || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("worker %q: %v, stderr %q; want status %d and %q", tc.flags, err, stderr.String(), tc.status, tc.want)
		}
		if strings.Contains(stderr.String(), "cannot reach Temporal") {
			t.Errorf("worker %q dialled Temporal before refusing", tc.flags)
		}
	}
}
