//go:build linux

package main

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// busyboxRootFS builds a root filesystem of the static busybox with a
// marker file no host has, or skips the test (fails under CI=true) when
// podman or a static busybox is missing.
func busyboxRootFS(t *testing.T) string {
	t.Helper()
	need := func(err error) {
		if err == nil {
			return
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("the container executor tests need podman and busybox-static in CI: %v", err)
		}
		t.Skipf("container executor tests skipped: %v", err)
	}
	_, err := exec.LookPath("podman")
	need(err)
	f, err := elf.Open("/bin/busybox")
	need(err)
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			need(errors.New("/bin/busybox is dynamically linked"))
		}
	}
	dir := filepath.Join(t.TempDir(), "rootfs")
	for _, d := range []string{"bin", "tmp", "etc", "workspace", "proc", "dev", "sys"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(dir, "tmp"), 0o1777)
	bb, err := os.ReadFile("/bin/busybox")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "busybox"), bb, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, applet := range []string{"sh", "cat", "echo", "ls", "pwd", "touch", "sleep", "seq", "id"} {
		if err := os.Symlink("busybox", filepath.Join(dir, "bin", applet)); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"etc/passwd":        "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n",
		"etc/group":         "root:x:0:\nnogroup:x:65534:\n",
		"etc/shellcap-mark": "inside the container\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunInContainer: `shellcap run --executor container` runs the command
// in the container, under the Shell's policy and limits, and the
// host-only subcommands refuse the container executor.
func TestRunInContainer(t *testing.T) {
	rootfs := busyboxRootFS(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "seen"), []byte("from the workspace\n"), 0o644)
	base := []string{"-w", ws, "--executor", "container", "--rootfs", rootfs, "--runtime", "podman", "--container-engine-args", "--cgroup-manager=cgroupfs"}
	runIn := func(args ...string) (string, int) {
		return cli(t, append(append([]string{"run"}, base...), args...)...)
	}
	if out, status := runIn("--", "cat /etc/shellcap-mark /workspace/seen; pwd"); status != 0 || out != "[stdout]\ninside the container\nfrom the workspace\n/workspace\n" {
		t.Fatalf("run in the container: %d %q", status, out)
	}
	if out, status := runIn("--", "rm /workspace/seen"); status != exitFailure || out != "Command 'rm' is denied.\n" {
		t.Errorf("the Shell's policy in the container: %d %q", status, out)
	}
	if out, status := runIn("--default-timeout", "1s", "--", "sleep 5"); status != exitTimeout {
		t.Errorf("the Shell's timeout in the container: %d %q", status, out)
	}
	if out, status := runIn("--max-output-chars", "30", "--", "seq 1 1000"); status != 0 || chars(out) > 30 {
		t.Errorf("the Shell's output cap in the container: %d, %d characters", status, chars(out))
	}
	if out, status := runIn("--", "touch /workspace/new"); status == 0 {
		t.Errorf("the workspace is writable without --container-writable-workspace: %q", out)
	}
	os.Chmod(ws, 0o777) // the container runs as nobody
	if out, status := runIn("--container-writable-workspace", "--", "touch /workspace/new"); status != 0 {
		t.Errorf("--container-writable-workspace: %d %q", status, out)
	}
	for _, sub := range []string{"repl", "start"} {
		var stdout, stderr strings.Builder
		args := append([]string{sub}, base...)
		if sub == "start" {
			args = append(args, "--", "true")
		}
		status := run(args, strings.NewReader(""), &stdout, &stderr)
		if status != exitFailure || !strings.Contains(stderr.String(), "--executor host") {
			t.Errorf("%s --executor container: %d %q", sub, status, stderr.String())
		}
	}
	var stderr strings.Builder
	if status := run([]string{"run", "-w", ws, "--executor", "container", "--", "true"}, strings.NewReader(""), &strings.Builder{}, &stderr); status != exitFailure || !strings.Contains(stderr.String(), "--image") {
		t.Errorf("--executor container without an image: %d %q", status, stderr.String())
	}
}

// TestMCPInContainer: with --executor container the MCP server offers
// run_command alone, and runs it in the container.
func TestMCPInContainer(t *testing.T) {
	rootfs := busyboxRootFS(t)
	_, cs := startServer(t, "mcp", lifeMark(t), "--executor", "container", "--rootfs", rootfs, "--container-engine-args", "--cgroup-manager=cgroupfs")
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "run_command" {
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		t.Fatalf("tools with the container executor: %v", names)
	}
	if text, _ := callTool(t, cs, "run_command", map[string]any{"command": "cat /etc/shellcap-mark"}); text != "[stdout]\ninside the container\n" {
		t.Fatalf("run_command in the container: %q", text)
	}
	if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "rm -rf /workspace"}}); err != nil || !res.IsError {
		t.Fatalf("denied in the container: %v %v", res, err)
	}
}
