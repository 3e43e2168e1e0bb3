// Package temporal runs shellcap's commands as Temporal activities on the
// host that owns each workspace, for agent platforms whose agents run as
// durable workflows across many machines.
//
// A worker (see [NewWorker], or `shellcap worker --temporal HOST:PORT
// --host NAME`) serves the workspaces of one host on that host's task queue,
// [TaskQueue](name) = "shellcap-host-<name>". Workflow code names a workspace
// by a [WorkspaceRef] (its host and its path there) and calls [Run], [Start],
// [Check], [Wait], [SendInput], [Stop], [List] or [Call]; each call is an
// activity routed to the queue of the workspace's host. The session workflow
// ([SessionWorkflow]) keeps one workspace's sticky directory and job table in
// workflow state, and is what the MCP front door (`shellcap serve
// --temporal`) calls.
//
// The package name collides with go.temporal.io/sdk/temporal; import one
// of them under another name:
//
//	import shtemporal "github.com/shellcap/shellcap/temporal"
//
// # Quick start
//
// On each host:
//
//	c, err := client.Dial(client.Options{HostPort: "temporal:7233"})
//	...
//	w, err := shtemporal.NewWorker(c, shtemporal.WorkerOptions{Host: "build-1", Workspaces: []string{"/srv/ws/app"}})
//	...
//	err = w.Run(worker.InterruptCh())
//
// In a workflow:
//
//	ws := shtemporal.WorkspaceRef{Host: "build-1", Path: "/srv/ws/app"}
//	ctx = shtemporal.WithCallOptions(ctx, shtemporal.CallOptions{OnProgress: func(p shtemporal.Progress) { ... }})
//	res, err := shtemporal.Run(ctx, ws, shtemporal.Request{Command: "go test ./...", Timeout: 5 * time.Minute})
//	var refusal *shtemporal.Refusal
//	if errors.As(err, &refusal) {
//		// nothing ran; refusal.Text is what the model reads
//	}
//	fmt.Print(res.Text) // exactly shellcap.Result.Text on the host
//
// # Timeouts, heartbeats, cancellation
//
// An activity's start-to-close timeout is the command's timeout (or the
// wait's) plus [CallOptions.Grace] (for a command without one, the
// workspace's default as [Describe] reports it, given as
// [CallOptions.Limits], else shellcap's default MaxTimeout); it heartbeats every
// WorkerOptions.HeartbeatInterval (the bytes so far and the output's tail,
// [Progress]), and [CallOptions.HeartbeatTimeout] (10 s) without one means
// its worker is lost. Cancelling the workflow cancels the activity, which
// learns of it at its next heartbeat; the Shell then stops the command's
// process group (SIGTERM, the kill grace, SIGKILL) before the activity
// reports, and the workflow waits for that.
//
// # Retries
//
// Refusals (a policy denial, an approval no one can give, a bad request, a
// spawn failure, an unknown job, a workspace the worker does not serve) are
// non-retryable application errors whose message is the model's text and
// whose type is a Kind constant; the workflow-side functions return them as
// a [*Refusal]. Infrastructure failures (a Shell that cannot be built, a
// worker stopping) are retried. Activities run at least once, so what they
// start is made idempotent: a job's ID derives from the workflow ID, its run
// ID and the activity ID (jobs.DeriveID), so a retried Start (or a Call of
// start_command or shell) re-attaches to the job the first attempt started.
//
// # Security
//
// A foreground command outlives a worker killed with SIGKILL unless its
// Shell has DieWithProcess. Each Run records the command's process group
// and start time, with its activity and the worker's process, under
// <workspace>/.shellcap/temporal/foreground/ while it runs; a restarted
// worker's NewWorker kills the groups of records whose worker is gone and
// whose shell is still the recorded process. The records live where
// commands can write, so each carries an HMAC-SHA256 under a key kept
// outside the workspace (temporal-foreground.key in jobs.Options.KeyDir, or
// jobs' default key directory); a record the sweep cannot parse or verify
// is logged and left alone, and nothing it names is signalled.
package temporal
