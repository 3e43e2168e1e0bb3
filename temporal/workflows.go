package temporal

import "go.temporal.io/sdk/worker"

// registerWorkflows registers the workflows a shellcap worker runs on its
// host's task queue.
//
// H3: the session workflow registers here (SessionWorkflow, session*.go).
func registerWorkflows(w worker.WorkflowRegistry) {
	_ = w
}
