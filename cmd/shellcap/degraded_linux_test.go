package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/sandbox"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// simulate makes cliconf.SandboxCheck answer as a machine that cannot enforce the
// sandbox would, and captures the log.
func simulate(t *testing.T, check func(sandbox.Config) error) *syncBuffer {
	t.Helper()
	real, logger := cliconf.SandboxCheck, slog.Default()
	cliconf.SandboxCheck = check
	log := &syncBuffer{}
	slog.SetDefault(slog.New(slog.NewTextHandler(log, nil)))
	t.Cleanup(func() {
		cliconf.SandboxCheck = real
		slog.SetDefault(logger)
	})
	return log
}

// serve builds the server of cfg as `shellcap mcp` does and connects an
// in-memory client.
func serve(t *testing.T, eff *config.File) *mcp.ClientSession {
	t.Helper()
	srv, closer, err := (&serverFlags{}).build(eff)
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
		closer.Close()
	})
	return cs
}

// enforcement is the sandbox report of a tool result.
func enforcement(t *testing.T, cs *mcp.ClientSession, tool, command string) (text string, report map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": command}})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	data, _ := json.Marshal(res.StructuredContent)
	var structured map[string]any
	if err := json.Unmarshal(data, &structured); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, data, err)
	}
	report, _ = structured["sandbox"].(map[string]any)
	return text, report
}

// TestServerWithoutSandboxWarns: on a platform with no sandbox at all the
// server still starts, and says that commands run unconfined in its log at
// start, in the instructions the model receives and in every result's
// enforcement report; the commands really are unconfined.
func TestServerWithoutSandboxWarns(t *testing.T) {
	log := simulate(t, func(sandbox.Config) error {
		return fmt.Errorf("simulated: %w", sandbox.ErrUnsupported)
	})
	ws, outside := t.TempDir(), t.TempDir()
	cs := serve(t, &config.File{Workspace: &ws})
	if !strings.Contains(log.String(), "commands run UNCONFINED") {
		t.Errorf("start-up log: %q", log.String())
	}
	if instr := cs.InitializeResult().Instructions; !strings.HasPrefix(instr, "WARNING: commands run UNCONFINED") {
		t.Errorf("instructions: %q", instr)
	}
	for _, tool := range []string{"run_command", "bash"} {
		target := filepath.Join(outside, tool)
		text, rep := enforcement(t, cs, tool, "echo x > "+target+"; echo wrote")
		if !strings.Contains(text, "wrote") {
			t.Fatalf("%s: %q", tool, text)
		}
		if _, err := os.Stat(target); err != nil {
			t.Errorf("%s: the simulation does not run unconfined: %v", tool, err)
		}
		downgrades := fmt.Sprint(rep["downgrades"])
		if rep["profile"] != "none" || !strings.Contains(downgrades, "NOT enforced") {
			t.Errorf("%s: enforcement report %v", tool, rep)
		}
	}
	started, _ := enforcement(t, cs, "start_command", "sleep 30")
	if !strings.Contains(started, "[sandbox: full-access, network full]") {
		t.Errorf("start_command does not say its job is unconfined: %q", started)
	}
}

// TestServerDegradedSandboxWarns: where the default sandbox misses a layer
// the server starts with the sandbox degraded (AllowDegraded), says so in
// its log and its instructions; a profile named on the command line is
// refused instead.
func TestServerDegradedSandboxWarns(t *testing.T) {
	needSandbox(t)
	real := cliconf.SandboxCheck
	var allowed bool
	log := simulate(t, func(cfg sandbox.Config) error {
		if !cfg.AllowDegraded {
			return fmt.Errorf("%w: landlock (simulated); set AllowDegraded to run without it", sandbox.ErrDegraded)
		}
		allowed = true
		return real(cfg)
	})
	ws, outside := t.TempDir(), t.TempDir()
	cs := serve(t, &config.File{Workspace: &ws})
	if !allowed {
		t.Fatal("the server did not degrade the sandbox")
	}
	if want := "the sandbox is degraded on this machine"; !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "landlock (simulated)") {
		t.Errorf("start-up log: %q", log.String())
	}
	if instr := cs.InitializeResult().Instructions; !strings.HasPrefix(instr, "WARNING: the sandbox is degraded") {
		t.Errorf("instructions: %q", instr)
	}
	// Still a sandbox: writes outside the workspace do not reach the host.
	target := filepath.Join(outside, "escaped")
	if _, rep := enforcement(t, cs, "run_command", "echo x > "+target); rep["profile"] != "workspace-write" {
		t.Errorf("enforcement report %v", rep)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the degraded sandbox let a write through: %v", err)
	}

	profile := "workspace-write"
	if _, _, err := (&serverFlags{}).build(&config.File{Workspace: &ws, Sandbox: &profile}); err == nil || !strings.Contains(err.Error(), "simulated") {
		t.Errorf("a named profile the machine cannot enforce: %v", err)
	}
}

// TestServerRefusesRootWorkspace: started from / without --workspace, as
// some desktop clients start servers, shellcap mcp refuses and says to
// pass one.
func TestServerRefusesRootWorkspace(t *testing.T) {
	cmd := cliCommand("mcp")
	cmd.Dir = "/"
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stderr = strings.NewReader(""), &stderr
	err := cmd.Run()
	if err == nil || cmd.ProcessState.ExitCode() != exitFailure || !strings.Contains(stderr.String(), "pass --workspace DIR") {
		t.Fatalf("mcp from /: %v, %q", err, stderr.String())
	}
	// With a workspace it serves (and ends at end-of-input).
	cmd = cliCommand("mcp", "--workspace", t.TempDir())
	cmd.Dir = "/"
	cmd.Stdin = strings.NewReader("")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mcp from / with a workspace: %v %s", err, out)
	}
}

// TestServerInstructionsSaySandbox: where the sandbox is enforced, the
// model is told what it allows.
func TestServerInstructionsSaySandbox(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	cs := serve(t, &config.File{Workspace: &ws})
	want := "Commands run in a sandbox (workspace-write profile): they can write only the workspace and a private /tmp, and there is no network."
	if instr := cs.InitializeResult().Instructions; !strings.HasPrefix(instr, want) {
		t.Errorf("instructions: %q", instr)
	}
}

// TestAllowlistIsNeverDropped: a host allowlist the user asked for is
// enforced or refused; a machine without a sandbox refuses it instead of
// running with the whole network.
func TestAllowlistIsNeverDropped(t *testing.T) {
	simulate(t, func(sandbox.Config) error { return fmt.Errorf("simulated: %w", sandbox.ErrUnsupported) })
	ws := t.TempDir()
	netw := "allowlist"
	_, closer, err := (&serverFlags{}).build(&config.File{Workspace: &ws, SandboxNetwork: &netw, SandboxAllow: []string{"example.com:443"}})
	if err == nil {
		closer.Close()
		t.Fatal("an allowlist was accepted on a machine without a sandbox")
	}
	if !strings.Contains(err.Error(), "not supported") {
		t.Fatalf("error: %v", err)
	}
}
