package temporal

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// registerWorkflows registers the workflows a shellcap worker runs on its
// host's task queue: the session workflow of each of its workspaces, and
// the workflow that describes one for a client.
func registerWorkflows(w worker.WorkflowRegistry) {
	w.RegisterWorkflowWithOptions(SessionWorkflow, workflow.RegisterOptions{Name: SessionWorkflowName})
	w.RegisterWorkflowWithOptions(DescribeWorkflow, workflow.RegisterOptions{Name: DescribeWorkflowName})
}
