package sandbox

import (
	"fmt"

	"bytes"
	"context"
	"go.uber.org/goleak"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// outcome is what a sandboxed command did.
type outcome struct {
	code           int
	stdout, stderr string
}

// baseEnv is the environment of commands in tests.
func baseEnv(home string) []string {
	return []string{
		"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + home, "LANG=C", "TMPDIR=/tmp",
	}
}

// How a test starts its sandboxed command.
const (
	viaHelper   = "helper"   // Wrap: one helper per command
	viaLauncher = "launcher" // a Launcher built for the command
)

// startModes are both ways, for tests that attack each.
var startModes = []string{viaHelper, viaLauncher}

// runVia runs script with bash under cfg the given way.
func runVia(t *testing.T, mode string, cfg Config, script string, env ...string) outcome {
	t.Helper()
	if mode == viaHelper {
		return runIn(t, cfg, script, env...)
	}
	l, err := NewLauncher(cfg)
	if err != nil {
		t.Fatalf("NewLauncher: %v", err)
	}
	defer l.Close()
	return launchIn(t, l, cfg.Workspace, script, env...)
}

// runIn runs script with bash under cfg, with the workspace as its
// directory, and fails the test when Wrap fails or the run hangs.
func runIn(t *testing.T, cfg Config, script string, env ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	cmd.Dir = cfg.Workspace
	cmd.Env = append(baseEnv(cfg.Workspace), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if _, err := wrapCmd(cmd, cfg); err != nil {
		t.Fatalf("Wrap: %v", err)
	}
	err := cmd.Start()
	if err == nil {
		closeExtra(cmd)
		err = cmd.Wait()
	}
	if ctx.Err() != nil {
		t.Fatalf("timed out: %q", script)
	}
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run: %v", err)
		}
	}
	o := outcome{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
	if o.code == helperFailed {
		t.Fatalf("helper failed: %s", o.stderr)
	}
	return o
}

// closeExtra closes the parent's copy of the policy pipe after Start.
func closeExtra(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
}

func requireSandbox(t *testing.T) Capabilities {
	t.Helper()
	c := Doctor()
	if !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		t.Skipf("machine cannot enforce the full sandbox:\n%s", c.Text())
	}
	return c
}

// TestMain fails the run when the tests leaked a goroutine or a
// descriptor.
func TestMain(m *testing.M) {
	// The runtime's poller (an epoll and an eventfd) lives for the rest of
	// the process once anything uses it: start it before counting.
	if r, w, err := os.Pipe(); err == nil {
		r.SetReadDeadline(time.Now())
		r.Close()
		w.Close()
	}
	before := openFDs()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "leaked goroutines:", err)
			code = 1
		}
		if after := openFDs(); after > before {
			fmt.Fprintf(os.Stderr, "leaked %d descriptors\n", after-before)
			code = 1
		}
	}
	os.Exit(code)
}

func openFDs() int {
	des, _ := os.ReadDir("/proc/self/fd")
	return len(des)
}

func unixFcntlClearCloexec(fd int) (int, error) {
	return unix.FcntlInt(uintptr(fd), unix.F_SETFD, 0)
}
