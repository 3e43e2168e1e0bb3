//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfigErrorsNameTheKey: a value shellcap.New, jobs.New or the HTTP
// server refuses is reported with the key path and the file it came from,
// never the library's field name (Options.MaxTimeout).
func TestConfigErrorsNameTheKey(t *testing.T) {
	cases := []struct {
		yaml, want string
		args       []string
	}{
		{"max_timeout: -1s", "max_timeout: must not be negative", []string{"run", "--", "true"}},
		{"default_timeout: 20m", "default_timeout: 20m0s is above max_timeout 10m0s", []string{"run", "--", "true"}},
		{"memory_limit: -5", "memory_limit: must not be negative", []string{"run", "--", "true"}},
		{"max_processes: -1", "max_processes: must not be negative", []string{"run", "--", "true"}},
		{"session:\n  max_timeout: -1s", "session.max_timeout: must not be negative", []string{"repl"}},
		{"jobs:\n  max_log_bytes: 10", "jobs.max_log_bytes: must be at least 65536", []string{"jobs"}},
		{"jobs:\n  max_jobs: -1", "jobs.max_jobs: must not be negative", []string{"jobs"}},
		{"server:\n  max_body_bytes: 0", "server.max_body_bytes: must be greater than zero", []string{"serve"}},
		{"server:\n  max_body_bytes: -4", "server.max_body_bytes: must be greater than zero", []string{"serve"}},
		{"server:\n  max_body_bytes: 10", "server.max_body_bytes: must be at least 65536 bytes (64KiB) to hold a request", []string{"serve"}},
		{"server:\n  addr: 12", `server.addr: "12" is not a listen address`, []string{"serve"}},
		{"server:\n  max_sessions: -1", "server.max_sessions: must not be negative", []string{"serve"}},
		{"server:\n  session_idle_timeout: -1s", "server.session_idle_timeout: must not be negative", []string{"serve"}},
		{"sandbox_tmp_size: -1", "sandbox_tmp_size: sandbox_tmp_size -1 is below", []string{"run", "--", "true"}},
		{"sandbox_proxy_max_conns: -5", "sandbox_proxy_max_conns: sandbox_proxy_max_conns (-5)", []string{"run", "--", "true"}},
	}
	for _, c := range cases {
		dir := t.TempDir()
		cfg := filepath.Join(dir, "shellcap.yaml")
		if err := os.WriteFile(cfg, []byte(c.yaml+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ws := filepath.Join(dir, "ws")
		os.Mkdir(ws, 0o755)
		args := append([]string{c.args[0], "--config", cfg, "--workspace", ws}, c.args[1:]...)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), "SCTEST_BE_CLI=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		msg := stderr.String()
		if err == nil || !strings.Contains(msg, "config "+cfg+": "+c.want) || strings.Contains(msg, "Options.") || strings.Contains(msg, "option ") {
			t.Errorf("%q with %v: %v\n%s", c.yaml, c.args, err, msg)
		}
	}
}
