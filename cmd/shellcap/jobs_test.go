package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// cli runs the CLI in-process and returns stdout and the exit status.
func cli(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	status := run(args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), status
}

// TestJobCommands: a person inspects and stops what an agent started, in
// the same job store.
func TestJobCommands(t *testing.T) {
	ws := t.TempDir()
	out, status := cli(t, "start", "-w", ws, "--", "echo from-job; sleep 60")
	id := regexp.MustCompile(`ID: ([0-9a-f]{32})`).FindStringSubmatch(out)
	if status != 0 || id == nil {
		t.Fatalf("start: %d %q", status, out)
	}
	if out, _ := cli(t, "jobs", "-w", ws); !strings.Contains(out, id[1]) || !strings.Contains(out, "running") {
		t.Fatalf("jobs: %q", out)
	}
	var check string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if check, _ = cli(t, "check", "-w", ws, id[1]); strings.Contains(check, "from-job") {
			break
		}
	}
	if check != "[stdout]\nfrom-job\n\n[status: running]\n" {
		t.Fatalf("check: %q", check)
	}
	if out, _ := cli(t, "wait", "-w", ws, "--timeout", "100ms", id[1]); !strings.HasSuffix(out, "[status: running]\n") {
		t.Fatalf("wait: %q", out)
	}
	if out, status := cli(t, "stop", "-w", ws, id[1]); status != 0 || out != "[stdout]\nfrom-job\n\n[stopped]\n[exit code: 143]\n" {
		t.Fatalf("stop: %d %q", status, out)
	}
	if out, status := cli(t, "check", "-w", ws, id[1]); status != exitFailure || out != "[Error: unknown command ID '"+id[1]+"']\n" {
		t.Fatalf("check after stop: %d %q", status, out)
	}
}
