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
package temporal
