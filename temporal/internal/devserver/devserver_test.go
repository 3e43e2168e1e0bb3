//go:build linux

package devserver

import (
	"context"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func echo(ctx workflow.Context, s string) (string, error) { return "echo: " + s, nil }

// TestServerRunsWorkflows runs a workflow end to end on the shared server:
// the harness gives the other tests a real server, not just a port.
func TestServerRunsWorkflows(t *testing.T) {
	srv := ForTest(t)
	c := srv.Dial(t)
	w := worker.New(c, "devserver-test", worker.Options{})
	w.RegisterWorkflow(echo)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "devserver-test"}, echo, "hi")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got != "echo: hi" {
		t.Fatalf("workflow returned %q", got)
	}
}

// TestMissingBinary: a binary that is not there is ErrMissing, which
// ForTest skips on only outside CI.
func TestMissingBinary(t *testing.T) {
	t.Setenv(EnvPath, "/nonexistent/temporal")
	if _, err := Path(); err == nil {
		t.Fatal("Path found a binary that does not exist")
	}
	if _, err := Start(context.Background()); err == nil {
		t.Fatal("Start ran a binary that does not exist")
	}
}
