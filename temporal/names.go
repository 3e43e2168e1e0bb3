package temporal

// Activity names: what the worker registers each activity of [Activities]
// as, and what the workflow-side functions schedule.
const (
	ActivityRun       = "shellcap.Run"
	ActivityStart     = "shellcap.Start"
	ActivityCheck     = "shellcap.Check"
	ActivityWait      = "shellcap.Wait"
	ActivitySendInput = "shellcap.SendInput"
	ActivityStop      = "shellcap.Stop"
	ActivityList      = "shellcap.List"
	ActivityCall      = "shellcap.Call"
)

// ProgressSignal is the signal an activity sends the workflow that called
// it, at each heartbeat, when the call asked for progress
// ([CallOptions.OnProgress]). Its payload is a [ProgressUpdate].
const ProgressSignal = "shellcap.progress"

// ProgressUpdate is the payload of [ProgressSignal]: the progress of the
// activity whose ID it names.
type ProgressUpdate struct {
	ActivityID string   `json:"activity_id"`
	Progress   Progress `json:"progress"`
}
