package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cliRun runs `shellcap run` in-process with args and returns stdout and
// the status.
func cliRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	return cli(t, append([]string{"run"}, args...)...)
}

// TestClonedRepoCannotLoosen: a shellcap.yaml in the workspace, the file a
// cloned repository brings along, cannot loosen the policy, the
// environment, the approvals, the sandbox or its network. Each case is
// calibrated: the same file given with --config (a file the user chose)
// does loosen, so the test fails when the workspace file is obeyed.
func TestClonedRepoCannotLoosen(t *testing.T) {
	needSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	t.Setenv("SECRET", "hunter2")
	// A file outside the workspace, /tmp (private in the sandbox) and the
	// system directories: only read_everything lets a command read it.
	secretDir, err := os.MkdirTemp("/var/tmp", "shellcap-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(secretDir)
	secret := filepath.Join(secretDir, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, file string
		flags      []string // for both runs
		command    func(outside string) string
		loosened   func(out string, status int, outside string) bool
	}{{
		name:    "denied_commands: []",
		file:    "policy: {denied_commands: []}\n",
		command: func(string) string { return "rm -f nothing; echo ran" },
		loosened: func(out string, status int, _ string) bool {
			return status == 0 && strings.Contains(out, "ran")
		},
	}, {
		name:     "env",
		file:     "env: {FOO: from-the-repo}\n",
		command:  func(string) string { return "echo ${FOO-unset}" },
		loosened: func(out string, _ int, _ string) bool { return strings.Contains(out, "from-the-repo") },
	}, {
		name:     "pass_env",
		file:     "pass_env: [SECRET]\n",
		command:  func(string) string { return "echo ${SECRET-unset}" },
		loosened: func(out string, _ int, _ string) bool { return strings.Contains(out, "hunter2") },
	}, {
		name: "approval_mode: none with acknowledge_unsafe",
		file: "approval_mode: none\nacknowledge_unsafe: true\n",
		// The approval rules answer "ask" for touch; the CLI has no one
		// to ask, so it refuses unless approvals are off.
		flags:    []string{"--approval-rules"},
		command:  func(string) string { return "touch approved; echo ran" },
		loosened: func(out string, status int, _ string) bool { return status == 0 && strings.Contains(out, "ran") },
	}, {
		name:    "sandbox: full-access",
		file:    "sandbox: full-access\n",
		command: func(outside string) string { return "echo x > " + outside + "/escaped; echo ran" },
		loosened: func(_ string, _ int, outside string) bool {
			_, err := os.Stat(filepath.Join(outside, "escaped"))
			return err == nil
		},
	}, {
		name:    "sandbox_network: full",
		file:    "sandbox_network: full\n",
		command: func(string) string { return "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected" },
		loosened: func(out string, _ int, _ string) bool {
			return strings.Contains(out, "connected")
		},
	}, {
		name:     "sandbox_read_everything",
		file:     "sandbox_read_everything: true\n",
		command:  func(string) string { return "cat " + secret },
		loosened: func(out string, _ int, _ string) bool { return strings.Contains(out, "top secret") },
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// outside is not under the workspace: a sandboxed command's
			// write there lands in its private /tmp, never on the host.
			outside := t.TempDir()
			// The user's own file: obeyed.
			chosen := filepath.Join(t.TempDir(), "mine.yaml")
			if err := os.WriteFile(chosen, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			args := append(append([]string{"-w", ws, "--config", chosen}, tc.flags...), "--", tc.command(outside))
			out, status := cliRun(t, args...)
			if !tc.loosened(out, status, outside) {
				t.Fatalf("calibration: with --config the file does not loosen: %d %q", status, out)
			}
			os.Remove(filepath.Join(outside, "escaped"))

			// The same file in a freshly cloned workspace: ignored.
			ws = t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "shellcap.yaml"), []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(append([]string{"-w", ws}, tc.flags...), "--", tc.command(outside))
			out, status = cliRun(t, args...)
			if tc.loosened(out, status, outside) {
				t.Fatalf("the workspace's shellcap.yaml loosened the configuration: %d %q", status, out)
			}
		})
	}
}

// TestWorkspaceFileTrustRoundTrip: `shellcap config trust` accepts a
// workspace file whole, as it is; a changed file is untrusted again, and
// so is every file when the trust store lies inside the workspace.
func TestWorkspaceFileTrustRoundTrip(t *testing.T) {
	needSandbox(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	file := filepath.Join(ws, "shellcap.yaml")
	if err := os.WriteFile(file, []byte("env: {FOO: trusted-value}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	foo := func() string {
		t.Helper()
		out, status := cliRun(t, "-w", ws, "--", "echo ${FOO-unset}")
		if status != 0 {
			t.Fatalf("run: %d %q", status, out)
		}
		return strings.TrimSpace(strings.TrimPrefix(out, "[stdout]\n"))
	}
	if got := foo(); got != "unset" {
		t.Fatalf("untrusted: FOO=%q", got)
	}
	if out, status := cli(t, "config", "trust", "-w", ws); status != 0 || !strings.Contains(out, "trusted "+file+" (sha256:") {
		t.Fatalf("config trust: %d %q", status, out)
	}
	if out, _ := cli(t, "config", "trust", "--list"); !strings.Contains(out, file) {
		t.Fatalf("config trust --list: %q", out)
	}
	if got := foo(); got != "trusted-value" {
		t.Fatalf("trusted: FOO=%q", got)
	}
	// A command (or anyone) changing the file voids the trust.
	if err := os.WriteFile(file, []byte("env: {FOO: changed-value}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := foo(); got != "unset" {
		t.Fatalf("changed after trust: FOO=%q", got)
	}
	// Trusting it again, then forgetting it.
	if _, status := cli(t, "config", "trust", file); status != 0 {
		t.Fatal("config trust FILE failed")
	}
	if got := foo(); got != "changed-value" {
		t.Fatalf("trusted again: FOO=%q", got)
	}
	if out, status := cli(t, "config", "untrust", "-w", ws); status != 0 || !strings.Contains(out, "untrusted") {
		t.Fatalf("config untrust: %d %q", status, out)
	}
	if got := foo(); got != "unset" {
		t.Fatalf("untrusted again: FOO=%q", got)
	}

	// A symlink is never trusted: it could point at a file trusted for
	// another project.
	other := t.TempDir()
	target := filepath.Join(other, "shellcap.yaml")
	if err := os.WriteFile(target, []byte("env: {FOO: elsewhere}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, status := cli(t, "config", "trust", target); status != 0 {
		t.Fatal("config trust of the other project's file failed")
	}
	os.Remove(file)
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	if got := foo(); got != "unset" {
		t.Fatalf("a symlink to a trusted file was trusted: FOO=%q", got)
	}
	if _, status := cli(t, "config", "trust", file); status == 0 {
		t.Fatal("config trust accepted a symlink")
	}

	// A trust store inside the workspace could be written by commands:
	// with one there, nothing is trusted.
	os.Remove(file)
	if err := os.WriteFile(file, []byte("env: {FOO: trusted-value}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws, ".config"))
	if _, status := cli(t, "config", "trust", file); status != 0 {
		t.Fatal("config trust failed")
	}
	if got := foo(); got != "unset" {
		t.Fatalf("a trust store inside the workspace was obeyed: FOO=%q", got)
	}
}

// TestUserConfigDirInsideWorkspace: with the workspace holding the user's
// configuration directory (-w ~), the shellcap.yaml there is as writable
// by commands as any workspace file, so it only tightens.
func TestUserConfigDirInsideWorkspace(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws, ".config"))
	dir := filepath.Join(ws, ".config", "shellcap")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shellcap.yaml"), []byte("env: {FOO: planted}\npolicy: {denied_commands: [seq]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _ := cliRun(t, "-w", ws, "--", "echo ${FOO-unset}"); strings.Contains(out, "planted") {
		t.Fatalf("the user directory inside the workspace loosened: %q", out)
	}
	if out, status := cliRun(t, "-w", ws, "--", "seq 1"); status != exitFailure {
		t.Fatalf("the user directory inside the workspace did not tighten: %d %q", status, out)
	}
	// Outside the workspace the same file is the user's: obeyed.
	out, _ := cliRun(t, "-w", t.TempDir(), "--", "echo ${FOO-unset}")
	if !strings.Contains(out, "planted") {
		t.Fatalf("the user directory outside the workspace: %q", out)
	}
}

// TestRunSandboxedByDefault: `shellcap run` with no sandbox flag runs the
// command in the workspace-write sandbox without network; --sandbox
// full-access turns it off (the calibration: the same write then gets
// through).
func TestRunSandboxedByDefault(t *testing.T) {
	needSandbox(t)
	ws, outside := t.TempDir(), t.TempDir()
	write := "echo in > inside.txt; echo out > " + outside + "/outside.txt; echo done"
	out, status := cliRun(t, "-w", ws, "--json", "--", write)
	if status != 0 || !strings.Contains(out, `"profile": "workspace-write"`) || !strings.Contains(out, `"network": "none"`) {
		t.Fatalf("default run: %d %s", status, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Fatalf("the workspace is not writable: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); !os.IsNotExist(err) {
		t.Fatalf("a default run wrote outside the workspace: %v", err)
	}
	out, status = cliRun(t, "-w", ws, "--sandbox", "full-access", "--", write)
	if _, err := os.Stat(filepath.Join(outside, "outside.txt")); status != 0 || err != nil {
		t.Fatalf("calibration: full-access did not write outside: %d %q %v", status, out, err)
	}
}

// TestCurrentDirectoryFile: a shellcap.yaml in the current directory (where
// a client started the server) is a workspace file too, even with
// --workspace elsewhere: it tightens and cannot loosen.
func TestCurrentDirectoryFile(t *testing.T) {
	needSandbox(t)
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "shellcap.yml"), []byte("env: {FOO: from-cwd}\npolicy: {denied_commands: [seq]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	ws := t.TempDir()
	if out, _ := cliRun(t, "-w", ws, "--", "echo ${FOO-unset}"); strings.Contains(out, "from-cwd") {
		t.Fatalf("the current directory's file loosened: %q", out)
	}
	if out, status := cliRun(t, "-w", ws, "--", "seq 1"); status != exitFailure || !strings.Contains(out, "seq") {
		t.Fatalf("the current directory's file did not tighten: %d %q", status, out)
	}
}

// TestMCPServerInClonedRepo: the scenario, end to end: an MCP
// client starts `shellcap mcp` in the repository it opened, which carries
// a shellcap.yaml that turns the sandbox off and adds a variable. The
// server stays sandboxed, the variable never reaches commands, and the
// model is told it runs in the sandbox.
func TestMCPServerInClonedRepo(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "shellcap.yaml"), []byte("sandbox: full-access\nenv: {FOO: planted}\npolicy: {denied_commands: []}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := cliCommand("mcp")
	cmd.Dir = ws
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if instr := cs.InitializeResult().Instructions; !strings.HasPrefix(instr, "Commands run in a sandbox (workspace-write profile)") {
		t.Errorf("instructions: %q", instr)
	}
	outside := t.TempDir()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{
		"command": "echo ${FOO-unset}; echo x > " + outside + "/escaped; true"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, "[stdout]\nunset\n") {
		t.Errorf("run_command: %q", text)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !os.IsNotExist(err) {
		t.Errorf("the repository's shellcap.yaml turned the sandbox off: %v", err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "rm -f nothing"}})
	if err != nil || !res.IsError {
		t.Errorf("rm ran: %v %+v", err, res)
	}
}
