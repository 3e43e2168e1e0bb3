package sandbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/sandbox"
)

// TestShellSandbox runs commands through shellcap.Shell with the sandbox
// as its Confiner: writes outside the workspace fail, the workspace is
// writable, and every result reports what was enforced.
func TestShellSandbox(t *testing.T) {
	ws := t.TempDir()
	outside := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sh.Run(ctx, shellcap.Request{Command: "echo inside > made; echo escape > " + filepath.Join(outside, "x") + "; cat made"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "inside\n" || res.ExitCode != 0 {
		t.Fatalf("sandboxed run:\n%s", res.Text())
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a write outside the workspace got through: %v", err)
	}
	if res.Sandbox == nil || res.Sandbox.Profile != "workspace-write" || len(res.Sandbox.Layers) == 0 {
		t.Fatalf("no enforcement report: %+v", res.Sandbox)
	}
	data, _ := json.Marshal(res)
	if !strings.Contains(string(data), `"sandbox":{"profile":"workspace-write"`) {
		t.Fatalf("JSON lacks the report: %s", data)
	}

	// A timeout still stops the whole sandboxed tree.
	res, err = sh.Run(ctx, shellcap.Request{Command: "sleep 60 & sleep 60", Timeout: 300 * time.Millisecond})
	if err != nil || !res.TimedOut {
		t.Fatalf("timeout in the sandbox: %v\n%s", err, res.Text())
	}
}

// TestShellSandboxPersistCwd: with PersistCwd, cd sticks across sandboxed
// commands, a script's own descriptor 3 is left alone, and a directory
// outside the workspace is never adopted.
func TestShellSandboxPersistCwd(t *testing.T) {
	ws := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, PersistCwd: true, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(command string) *shellcap.Result {
		t.Helper()
		res, err := sh.Run(ctx, shellcap.Request{Command: command})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("mkdir -p a/b && cd a/b && exec 3>log.txt && echo mine >&3"); res.ExitCode != 0 {
		t.Fatalf("cd: %s", res.Text())
	}
	res := run("pwd; cat log.txt")
	if want := filepath.Join(ws, "a", "b") + "\nmine\n"; res.Stdout != want {
		t.Fatalf("got %q, want %q", res.Stdout, want)
	}
	if res := run("cd /tmp"); res.ExitCode != 0 {
		t.Fatalf("cd /tmp: %s", res.Text())
	}
	if res := run("pwd"); res.Stdout != filepath.Join(ws, "a", "b")+"\n" {
		t.Fatalf("a directory outside the workspace was adopted: %q", res.Stdout)
	}
}

// TestShellPersistCwdNeedsLauncher: a Confiner that only rewrites commands
// cannot carry the directory record, so New refuses PersistCwd with it.
func TestShellPersistCwdNeedsLauncher(t *testing.T) {
	_, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), PersistCwd: true, Sandbox: wrapOnly{}})
	var oe *shellcap.OptionError
	if !errors.As(err, &oe) || oe.Option != "PersistCwd" {
		t.Fatalf("New: %v", err)
	}
}

// wrapOnly is a Confiner without a launcher.
type wrapOnly struct{}

func (wrapOnly) Confine(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, error) {
	return sandbox.Wrap(cmd, sandbox.Config{Workspace: workspace})
}

// TestShellSandboxLauncher runs commands concurrently through the Shell's
// launcher, checks that processes a command leaves running are reported
// (named by their PIDs as the host sees them) and that Close ends them.
func TestShellSandboxLauncher(t *testing.T) {
	ws := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			want := strconv.Itoa(i)
			res, err := sh.Run(ctx, shellcap.Request{Command: "echo " + want + "; echo err >&2; exit " + want})
			if err != nil || res.Stdout != want+"\n" || res.Stderr != "err\n" || res.ExitCode != i {
				t.Errorf("run %d: %v\n%s", i, err, res.Text())
			}
		})
	}
	wg.Wait()

	res, err := sh.Run(ctx, shellcap.Request{Command: "sleep 31338 & echo started"})
	if err != nil || res.ExitCode != 0 || len(res.LeftRunning) != 1 {
		t.Fatalf("leftover: %v %+v\n%s", err, res.LeftRunning, res.Text())
	}
	pid := res.LeftRunning[0]
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !strings.Contains(string(b), "31338") {
		t.Fatalf("reported PID %d is not the leftover sleep: %q %v", pid, b, err)
	}
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; syscall.Kill(pid, 0) == nil; i++ {
		if i == 500 {
			t.Fatalf("leftover %d survived Close", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestShellSandboxAllowlist runs a command of a Shell under the network
// allowlist: it sees the proxy, and the trial Confine that shellcap.New
// makes, never started, leaves no proxy behind (TestMain checks).
func TestShellSandboxAllowlist(t *testing.T) {
	if c := sandbox.Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		t.Skipf("machine cannot enforce the full sandbox:\n%s", c.Text())
	}
	ws := t.TempDir()
	cfg := sandbox.Config{Network: sandbox.NetworkAllowlist, Allow: []string{"example.com:443"}}
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sh.Run(ctx, shellcap.Request{Command: `echo "$HTTPS_PROXY"; getent hosts example.com || echo no dns`})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "http://127.0.0.1:3128\nno dns\n" {
		t.Fatalf("allowlist run:\n%s", res.Text())
	}
}

// TestShellSandboxStartErrors: what the kernel refuses inside the sandbox
// comes back as it does without one: an environment over the kernel's
// limit is a StartError matching E2BIG.
func TestShellSandboxStartErrors(t *testing.T) {
	ws := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	big := strings.Repeat("x", 200<<10)
	_, err = sh.Run(t.Context(), shellcap.Request{Command: "true", Env: map[string]string{"HUGE": big}})
	var se *shellcap.StartError
	if !errors.As(err, &se) || !errors.Is(err, syscall.E2BIG) || !errors.Is(err, shellcap.ErrSandbox) {
		t.Fatalf("Run with a 200 kB variable in the sandbox: %v, want a StartError matching E2BIG", err)
	}
	res, err := sh.Run(t.Context(), shellcap.Request{Command: "echo fine"})
	if err != nil || res.Stdout != "fine\n" {
		t.Fatalf("after the failed start: %v %v", err, res)
	}
}
