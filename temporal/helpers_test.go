//go:build linux

package temporal

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/temporal/internal/devserver"
	"github.com/shellcap/shellcap/toolset"
)

// testMark is put into the environment of every command the tests' workers
// run, so that TestMain finds any process they leak.
var testMark = leaktest.Mark("SHELLCAP_TEMPORAL_TEST")

// Environment of a worker run as a re-executed test binary (runWorkerProcess).
const (
	envWorker    = "SHELLCAP_TEMPORAL_TEST_WORKER" // the host name
	envAddr      = "SHELLCAP_TEMPORAL_TEST_ADDR"
	envWorkspace = "SHELLCAP_TEMPORAL_TEST_WORKSPACE"
	envKeyDir    = "SHELLCAP_TEMPORAL_TEST_KEYDIR"
)

func TestMain(m *testing.M) {
	if host := os.Getenv(envWorker); host != "" {
		os.Exit(workerProcessMain(host))
	}
	code := devserver.Main(m)
	if code == 0 {
		if pids := leaktest.Processes(testMark, 5*time.Second); len(pids) > 0 {
			fmt.Fprintf(os.Stderr, "temporal tests leaked processes: %v\n", pids)
			for _, pid := range pids {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			code = 1
		}
	}
	os.Exit(code)
}

// workerProcessMain is a worker of host in a process of its own: it serves
// one workspace, without DieWithProcess, prints "ready" once it polls and
// runs until killed.
func workerProcessMain(host string) int {
	c, err := client.Dial(client.Options{HostPort: os.Getenv(envAddr), Logger: quietLogger{}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	w, err := NewWorker(c, testWorkerOptions(host, os.Getenv(envWorkspace), os.Getenv(envKeyDir), 200*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	if err := w.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 2
	}
	fmt.Println("ready")
	select {}
}

// testWorkerOptions serves workspace on host with the test mark in every
// command's environment and SHELLCAP_TEST_HOST naming the host.
func testWorkerOptions(host, workspace, keyDir string, interval time.Duration) WorkerOptions {
	return WorkerOptions{
		Host:       host,
		Workspaces: []string{workspace},
		Shell: func(ws string) shellcap.Options {
			env := leaktest.Env(testMark)
			env["SHELLCAP_TEST_HOST"] = host
			return shellcap.Options{Env: env, KillGrace: time.Second, Approve: toolset.Approve}
		},
		HeartbeatInterval: interval,
		Logger:            slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
	}.withKeyDir(keyDir)
}

func (o WorkerOptions) withKeyDir(dir string) WorkerOptions {
	o.Jobs.KeyDir = dir
	return o
}

// env is one test's Temporal: the shared dev server, a client, and a
// worker for the test's workflows on a queue of its own.
type env struct {
	t       testing.TB
	srv     *devserver.Server
	c       client.Client
	wfQueue string
	keyDir  string
}

func newEnv(t testing.TB, workflows ...any) *env {
	t.Helper()
	srv := devserver.ForTest(t)
	e := &env{t: t, srv: srv, c: srv.Dial(t), wfQueue: "wf-" + sanitize(t.Name()), keyDir: t.TempDir()}
	w := worker.New(e.c, e.wfQueue, worker.Options{})
	for _, wf := range workflows {
		w.RegisterWorkflow(wf)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return e
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// host starts an in-process worker for host serving a new workspace, and
// returns the workspace.
func (e *env) host(name string, mod func(*WorkerOptions)) WorkspaceRef {
	e.t.Helper()
	ws := e.t.TempDir()
	o := testWorkerOptions(name, ws, e.keyDir, 200*time.Millisecond)
	if mod != nil {
		mod(&o)
	}
	e.t.Cleanup(e.startWorker(o).Stop)
	return WorkspaceRef{Host: name, Path: ws}
}

// startWorker starts a worker with o. The caller stops it: a test that
// restarts its host stops the first worker itself.
func (e *env) startWorker(o WorkerOptions) *Worker {
	e.t.Helper()
	w, err := NewWorker(e.c, o)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// start starts workflow wf with args on the test's workflow queue.
func (e *env) start(ctx context.Context, wf any, args ...any) client.WorkflowRun {
	e.t.Helper()
	run, err := e.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: e.wfQueue, WorkflowExecutionTimeout: 2 * time.Minute}, wf, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	return run
}

// workerProcess is a worker run in a re-executed test binary.
type workerProcess struct {
	cmd *exec.Cmd
}

// startWorkerProcess starts a worker for ref's host and workspace in a
// process of its own and returns once it polls.
func (e *env) startWorkerProcess(ref WorkspaceRef) *workerProcess {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorker+"="+ref.Host, envAddr+"="+e.srv.Addr, envWorkspace+"="+ref.Path, envKeyDir+"="+e.keyDir)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	p := &workerProcess{cmd: cmd}
	e.t.Cleanup(p.kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		e.t.Fatalf("worker process: %q, %v", line, err)
	}
	return p
}

// kill kills the worker process with SIGKILL (not its commands, which are
// in process groups of their own) and reaps it.
func (p *workerProcess) kill() {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// waitFile waits up to a minute for path to hold a line, and returns it.
func waitFile(t testing.TB, path string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

func join(ws WorkspaceRef, name string) string { return filepath.Join(ws.Path, name) }

// runWorkflow runs one command through Run.
func runWorkflow(ctx workflow.Context, ws WorkspaceRef, req Request) (Result, error) {
	return Run(ctx, ws, req)
}
