//go:build linux

package temporal

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"
)

// The example: an agent-like workflow, without a model. It starts a
// server as a background job on the workspace's host, runs a test command
// against it while showing the command's heartbeats, and stops the
// server, whatever happened.

// exampleServer is the "server": it serves requests (here, it bumps a
// counter in the file served) until stopped.
const exampleServer = `i=0; while :; do i=$((i+1)); echo "served request $i"; echo "$i" > served.new && mv served.new served; sleep 0.1; done`

// exampleTest is the "test suite": it checks the server several times,
// for long enough that its progress shows.
const exampleTest = `for n in 1 2 3 4 5 6 7 8; do echo "check $n: the server has served $(cat served) requests"; sleep 0.2; done; test -s served`

// agentReport is what the agent workflow did.
type agentReport struct {
	Server   Job        `json:"server"`
	Test     Result     `json:"test"`
	Progress []Progress `json:"progress"`
	Stopped  JobResult  `json:"stopped"`
}

// agentWorkflow is the agent: start the server, run the test command with
// its progress, stop the server.
func agentWorkflow(ctx workflow.Context, ws WorkspaceRef) (rep agentReport, err error) {
	if rep.Server, err = Start(ctx, ws, StartRequest{Command: exampleServer}); err != nil {
		return rep, err
	}
	// Stop the server however the test goes, even if the workflow is
	// cancelled meanwhile.
	defer func() {
		stopCtx, _ := workflow.NewDisconnectedContext(ctx)
		var stopErr error
		if rep.Stopped, stopErr = Stop(stopCtx, ws, rep.Server.ID); err == nil {
			err = stopErr
		}
	}()
	testCtx := WithCallOptions(ctx, CallOptions{OnProgress: func(p Progress) {
		workflow.GetLogger(ctx).Info("test progress", "bytes", p.StdoutBytes, "tail", p.Tail)
		rep.Progress = append(rep.Progress, p)
	}})
	// Wait for the server's first request, then run the tests.
	if _, err = Run(ctx, ws, Request{Command: `for i in $(seq 50); do test -s served && exit 0; sleep 0.1; done; exit 1`, Timeout: 10 * time.Second}); err != nil {
		return rep, err
	}
	rep.Test, err = Run(testCtx, ws, Request{Command: exampleTest, Timeout: 30 * time.Second})
	return rep, err
}

// TestExampleAgent runs the agent workflow against the dev server on a
// host worker that heartbeats every 200 ms: the test command passes, its
// progress arrives while it runs (growing byte counts, a tail with its
// latest line), and the server job is stopped (SIGTERM: exit code 143)
// and its process group gone.
func TestExampleAgent(t *testing.T) {
	e := newEnv(t, agentWorkflow)
	ws := e.host("example-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var rep agentReport
	if err := e.start(ctx, agentWorkflow, ws).Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Test.ExitCode != 0 || !strings.Contains(rep.Test.Stdout, "check 8: the server has served") || rep.Test.Host != ws.Host {
		t.Errorf("the test command: exit %d on %s, %q", rep.Test.ExitCode, rep.Test.Host, rep.Test.Text)
	}
	if len(rep.Progress) < 3 {
		t.Fatalf("%d progress updates for a 1.6 s command heartbeating every 200 ms", len(rep.Progress))
	}
	for i := 1; i < len(rep.Progress); i++ {
		if rep.Progress[i].StdoutBytes < rep.Progress[i-1].StdoutBytes {
			t.Errorf("progress went back: %+v then %+v", rep.Progress[i-1], rep.Progress[i])
		}
	}
	last := rep.Progress[len(rep.Progress)-1]
	if !strings.Contains(last.Tail, "check ") || last.StdoutBytes == 0 || last.StdoutBytes > int64(len(rep.Test.Stdout)) {
		t.Errorf("the last progress: %+v", last)
	}
	if rep.Stopped.Status != "finished" || rep.Stopped.ExitCode == nil || *rep.Stopped.ExitCode != 143 {
		t.Errorf("the stopped server: %+v", rep.Stopped)
	}
	if rep.Server.PGID <= 0 {
		t.Fatalf("the server job has no process group: %+v", rep.Server)
	}
	for deadline := time.Now().Add(10 * time.Second); groupAlive(rep.Server.PGID); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process group %d is still alive after its stop", rep.Server.PGID)
		}
	}
}
