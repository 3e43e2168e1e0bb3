//go:build !shellcap_portable

package jobs_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/sandbox"
)

// sandboxedManager returns a Manager whose jobs run in the default sandbox
// (workspace-write, no network), or skips when this machine cannot
// provide it.
func sandboxedManager(t *testing.T, sh *shellcap.Shell, opts jobs.Options) *jobs.Manager {
	t.Helper()
	if opts.Confiner == nil {
		opts.Confiner = sandbox.Confiner(sandbox.Config{})
	}
	m, err := jobs.New(sh, opts)
	if errors.Is(err, sandbox.ErrDegraded) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot provide the sandbox: %v", err)
		}
		t.Skipf("no sandbox on this machine: %v", err)
	}
	if err == nil {
		m.Close()
	}
	return managerOn(t, sh, opts)
}

// TestSandboxedJobIsConfined runs a job that tries to write outside the
// workspace, into its own state directory and to a TCP listener of this
// test, and writes inside the workspace: only the last succeeds.
func TestSandboxedJobIsConfined(t *testing.T) {
	sh := newShell(t, "")
	m := sandboxedManager(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	outside := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	res, err := m.Start(ctx, jobs.StartRequest{Command: fmt.Sprintf(`echo in > inside.txt && echo wrote-inside
echo out > %s/outside.txt && echo wrote-outside
echo x > .shellcap/jobs/planted && echo wrote-state
bash -c 'echo hi > /dev/tcp/127.0.0.1/%d' && echo connected
echo done`, outside, port)})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %+v", err, res)
	}
	if !strings.HasSuffix(res.Text(), "\nID: "+res.ID+"\n[sandbox: workspace-write, network none]") {
		t.Fatalf("Start text = %q", res.Text())
	}
	if res.Sandbox == nil || res.Sandbox.Profile != string(sandbox.WorkspaceWrite) || res.Sandbox.Network != string(sandbox.NetworkNone) ||
		!slices.Contains(res.Sandbox.Layers, sandbox.LayerNamespaces) {
		t.Fatalf("StartResult.Sandbox = %+v", res.Sandbox)
	}
	w, err := m.Wait(ctx, res.ID, jobs.MaxWait)
	if err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %q", err, w.Text())
	}
	if w.Stdout != "wrote-inside\ndone\n" {
		t.Fatalf("stdout = %q (stderr %q)", w.Stdout, w.Stderr)
	}
	if w.Sandbox == nil || w.Sandbox.Profile != string(sandbox.WorkspaceWrite) {
		t.Fatalf("JobResult.Sandbox = %+v", w.Sandbox)
	}
	if data, err := os.ReadFile(filepath.Join(sh.Workspace(), "inside.txt")); err != nil || string(data) != "in\n" {
		t.Fatalf("inside.txt = %q, %v", data, err)
	}
	for _, p := range []string{filepath.Join(outside, "outside.txt"), filepath.Join(sh.Workspace(), ".shellcap", "jobs", "planted")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists (%v): the sandbox let the job write it", p, err)
		}
	}
	_ = ln.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := ln.Accept(); err == nil {
		c.Close()
		t.Fatal("the sandboxed job reached a TCP listener on the host")
	}
	st := readStatusMap(t, filepath.Join(res.Dir, "status.json"))
	if sb, ok := st["sandbox"].(map[string]any); !ok || sb["profile"] != "workspace-write" || sb["layers"] == nil {
		t.Fatalf("status.json sandbox = %v", st["sandbox"])
	}
}

// TestSandboxedJobStop stops sandboxed jobs (one with a child in the
// background, one whose shell execs, one stopped as soon as it started):
// SIGTERM reaches them although their shell runs in its own pid
// namespace, the exit code is 143 and no process of the job is left. A
// minute of grace: a 143 can only come from SIGTERM.
func TestSandboxedJobStop(t *testing.T) {
	m := sandboxedManager(t, newShell(t, ""), jobs.Options{KillGrace: time.Minute})
	ctx := ctxFor(t)
	mark := leaktest.Mark("SCTEST_JOBS_BOX") + "-stop"
	name, value, _ := strings.Cut(mark, "=")
	for _, c := range []struct {
		cmd       string
		waitForUp bool
	}{
		{"echo up; sleep 300 & sleep 300", true},
		{"echo up; exec sleep 300", true},
		{"echo up; sleep 300", true},
		{"echo up; sleep 300", false}, // the init may not have set its traps yet
	} {
		res, err := m.Start(ctx, jobs.StartRequest{Command: c.cmd, Env: map[string]string{name: value}})
		if err != nil || res.ID == "" {
			t.Fatalf("Start: %v %+v", err, res)
		}
		if c.waitForUp {
			waitOutput(t, m, res.ID, "up")
			if len(leaktest.Processes(mark, 0)) < 2 {
				t.Fatalf("%q: the job's processes are not visible", c.cmd)
			}
		}
		s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(s.Text(), "[stopped]\n[exit code: 143]") || c.waitForUp && s.Stdout != "up\n" {
			t.Fatalf("%q: Stop = %q", c.cmd, s.Text())
		}
		if left := leaktest.Processes(mark, 10*time.Second); len(left) > 0 {
			t.Fatalf("%q: processes left after Stop: %v", c.cmd, left)
		}
	}
}

// TestSandboxedRunTimeout: a job's own timeout stops it through the
// sandbox too, with SIGTERM (143).
func TestSandboxedRunTimeout(t *testing.T) {
	m := sandboxedManager(t, newShell(t, ""), jobs.Options{KillGrace: time.Minute})
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "echo start; exec sleep 300", Timeout: 300 * time.Millisecond}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Result == nil || !res.Result.TimedOut || res.Result.ExitCode != 143 || res.Result.Sandbox == nil ||
		res.Result.Sandbox.Profile != "workspace-write" {
		t.Fatalf("sandboxed timeout = %q (%+v)", res.Text(), res.Result)
	}
}

// TestSandboxedJobStdin feeds a sandboxed job through Input and through
// Run's Request.Stdin: the job reads exactly the bytes, then end-of-file.
func TestSandboxedJobStdin(t *testing.T) {
	m := sandboxedManager(t, newShell(t, ""), jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "cat; echo eof", Stdin: true})
	if in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "hello\n", EOF: true}); err != nil || in.Err != nil {
		t.Fatalf("Input: %v %+v", err, in)
	}
	w, err := m.Wait(ctx, id, jobs.MaxWait)
	if err != nil || w.Stdout != "hello\neof\n" || w.ExitCode == nil || *w.ExitCode != 0 {
		t.Fatalf("Wait = %q, %v", w.Text(), err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	res, err := m.Run(ctx, shellcap.Request{Command: "wc -c", Stdin: bytes.NewReader(data)}, 0)
	if err != nil || res.Result == nil || strings.TrimSpace(res.Result.Stdout) != "1048576" {
		t.Fatalf("sandboxed wc -c = %q, %v", res.Text(), err)
	}
}

// TestSandboxRefusals: New refuses a sandbox that cannot be had, and the
// supervisor refuses to start a job it cannot confine (here an extra
// writable root that vanished after New), starting nothing.
//
// A machine without a sandbox layer (sandbox.ErrDegraded) cannot be
// simulated from outside package sandbox; sandboxedManager skips there.
func TestSandboxRefusals(t *testing.T) {
	sh := newShell(t, "")
	if _, err := jobs.New(sh, jobs.Options{Confiner: sandbox.Confiner(sandbox.Config{Profile: "no-such-profile"})}); err == nil ||
		!strings.Contains(err.Error(), "no-such-profile") {
		t.Fatalf("New with a bad profile: %v", err)
	}
	extra := t.TempDir()
	m := sandboxedManager(t, sh, jobs.Options{Confiner: sandbox.Confiner(sandbox.Config{ExtraWritable: []string{extra}})})
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: "echo ran > ran.txt"})
	var se *shellcap.StartError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "cannot confine the job") || !strings.Contains(err.Error(), "extra writable root") {
		t.Fatalf("Start with an unusable sandbox = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(sh.Workspace(), "ran.txt")); !os.IsNotExist(err) {
		t.Fatalf("the command ran: %v", err)
	}
	if l, err := m.List(ctxFor(t)); err != nil || len(l.Jobs) != 0 {
		t.Fatalf("List after a refused start = %q, %v", l.Text(), err)
	}
}

// TestSandboxedJobSurvivesHostRestart: a sandboxed job started by a host
// that was then killed is found by a new Manager, still in its own pid
// namespace, and stops with 143.
func TestSandboxedJobSurvivesHostRestart(t *testing.T) {
	ws := t.TempDir()
	sandboxedManager(t, newShell(t, ws), jobs.Options{}) // skips without a sandbox
	id := startInHost(t, ws, true)
	m := managerOn(t, newShell(t, ws), jobs.Options{Confiner: sandbox.Confiner(sandbox.Config{})})
	c := waitOutput(t, m, id, "host-started")
	if c.Status != jobs.StatusRunning || c.Sandbox == nil || c.Sandbox.Profile != string(sandbox.WorkspaceWrite) {
		t.Fatalf("after the host died, Check = %q (sandbox %+v)", c.Text(), c.Sandbox)
	}
	l, err := m.List(ctxFor(t))
	if err != nil || len(l.Jobs) != 1 {
		t.Fatalf("List = %q, %v", l.Text(), err)
	}
	theirs, err1 := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", l.Jobs[0].PID))
	ours, err2 := os.Readlink("/proc/self/ns/pid")
	if err1 != nil || err2 != nil || theirs == ours {
		t.Fatalf("the job's pid namespace %q (%v) is not its own (ours %q, %v)", theirs, err1, ours, err2)
	}
	s, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[stdout]\nhost-started\n\n[stopped]\n[exit code: 143]"; s.Text() != want {
		t.Fatalf("Stop after restart = %q, want %q", s.Text(), want)
	}
}

// TestShellSandboxConfinesJobs: a Manager on a sandboxed Shell confines its
// jobs alike without being told.
func TestShellSandboxConfinesJobs(t *testing.T) {
	if c := sandbox.Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot provide the sandbox:\n%s", c.Text())
		}
		t.Skipf("no sandbox on this machine:\n%s", c.Text())
	}
	ws := t.TempDir()
	_, value, _ := strings.Cut(testMark, "=")
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Env: markEnv(value), Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	m := managerOn(t, sh, jobs.Options{})
	outside := t.TempDir()
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "echo x > " + outside + "/escaped; echo done"})
	if err != nil || res.Sandbox == nil {
		t.Fatalf("Start: %v %+v", err, res)
	}
	w, err := m.Wait(ctx, res.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Text(), "done") {
		t.Fatalf("the job did not run to its end:\n%s", w.Text())
	}
	if l, err := m.List(ctx); err != nil || len(l.Jobs) != 1 || l.Jobs[0].Sandbox == nil || l.Jobs[0].Sandbox.Profile != string(sandbox.WorkspaceWrite) {
		t.Fatalf("List does not say the job is sandboxed: %v %+v", err, l)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the job wrote outside the workspace: %v\n%s", err, w.Text())
	}
}

// TestSandboxedJobQuarantine: what git would obey that a sandboxed job
// creates is moved out of git's reach when the job ends and named in the
// job's sandbox report.
func TestSandboxedJobQuarantine(t *testing.T) {
	sh := newShell(t, "")
	m := sandboxedManager(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "git init -q made && echo x > made/.git/hooks/pre-commit && echo done"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.Wait(ctx, res.ID, jobs.MaxWait)
	if err != nil || w.Status != jobs.StatusFinished || w.Stdout != "done\n" {
		t.Fatalf("Wait: %v %q", err, w.Text())
	}
	if w.Sandbox == nil || !slices.Contains(w.Sandbox.Quarantined, "made/.git/hooks/pre-commit") {
		t.Fatalf("JobResult.Sandbox = %+v", w.Sandbox)
	}
	if _, err := os.Lstat(filepath.Join(sh.Workspace(), "made/.git/hooks/pre-commit")); err == nil {
		t.Fatal("the hook is still in place")
	}
}

// TestSandboxedJobQuarantineWithoutHost: the workspace check after a
// sandboxed job runs in its supervisor, so it runs when the host that
// started the job is gone: what git would obey that the job creates after
// the host died is quarantined, and a new Manager reports it.
func TestSandboxedJobQuarantineWithoutHost(t *testing.T) {
	ws := t.TempDir()
	sandboxedManager(t, newShell(t, ws), jobs.Options{}) // skips without a sandbox
	id := startCommandInHost(t, ws, "default", "echo host-started; while [ ! -e go ]; do sleep 0.01; done; git init -q made && echo x > made/.git/hooks/pre-commit && echo done")
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := managerOn(t, newShell(t, ws), jobs.Options{Confiner: sandbox.Confiner(sandbox.Config{})})
	ctx := ctxFor(t)
	w, err := m.Wait(ctx, id, jobs.MaxWait)
	if err != nil || w.Status != jobs.StatusFinished || !strings.HasSuffix(w.Stdout, "done\n") {
		t.Fatalf("Wait: %v %q", err, w.Text())
	}
	if w.Sandbox == nil || !slices.Contains(w.Sandbox.Quarantined, "made/.git/hooks/pre-commit") {
		t.Fatalf("JobResult.Sandbox = %+v", w.Sandbox)
	}
	if _, err := os.Lstat(filepath.Join(ws, "made/.git/hooks/pre-commit")); err == nil {
		t.Fatal("the hook is still in place")
	}
}

// TestSandboxedJobProxyWithoutHost: the network allowlist proxy of a
// sandboxed job is served beside the job, not by the host that started it:
// after the host died, the job still reaches the proxy, which refuses a
// destination the allowlist does not name.
func TestSandboxedJobProxyWithoutHost(t *testing.T) {
	ws := t.TempDir()
	sandboxedManager(t, newShell(t, ws), jobs.Options{}) // skips without a sandbox
	id := startCommandInHost(t, ws, "allowlist", `echo host-started; while [ ! -e go ]; do sleep 0.01; done
exec 3<>/dev/tcp/127.0.0.1/3128 || exit 9
printf 'CONNECT denied.example:443 HTTP/1.1\r\nHost: denied.example:443\r\n\r\n' >&3
head -1 <&3`)
	if err := os.WriteFile(filepath.Join(ws, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	w, err := m.Wait(ctxFor(t), id, jobs.MaxWait)
	if err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %q", err, w.Text())
	}
	if !strings.Contains(w.Stdout, "host-started\nHTTP/1.1 403") || w.Sandbox == nil || w.Sandbox.Network != string(sandbox.NetworkAllowlist) {
		t.Fatalf("the job did not reach its proxy after the host died:\n%s\n(sandbox %+v)", w.Text(), w.Sandbox)
	}
}
