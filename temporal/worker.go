package temporal

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
)

// DefaultHeartbeatInterval is WorkerOptions.HeartbeatInterval's default.
const DefaultHeartbeatInterval = time.Second

// WorkerOptions configures a [Worker]. Host is required; everything else
// has a safe zero value.
type WorkerOptions struct {
	// Host is the host's name: the worker polls TaskQueue(Host) and serves
	// WorkspaceRefs whose Host it is. Required.
	Host string

	// Workspaces are the absolute, clean paths of the workspaces the
	// worker serves; a call for any other is refused (non-retryable,
	// naming it). Each gets its Shell, jobs.Manager and toolset on first
	// use.
	Workspaces []string

	// Shell returns the Shell options for a workspace (its Workspace field
	// is set to the workspace). Nil means shellcap's safe defaults with
	// Approve: toolset.Approve, so a command the policy wants approved is
	// asked about through a tool call's hooks (the Call activity's
	// interrupt) and refused elsewhere, and, on Linux, DieWithProcess, so
	// that the worker's foreground commands die with it.
	Shell func(workspace string) shellcap.Options

	// OpenWorkspace, when set, builds what a workspace's tools run on, on
	// its first use: its Shell (in its sandbox, as the shellcap-temporal
	// worker configures it) and the options of its job manager and bash
	// sessions. It replaces Shell, and Jobs and Session for that
	// workspace (Jobs.KeyDir still names the worker's key directory). A
	// failure is retried on the next call. Nil uses Shell, Jobs and
	// Session.
	OpenWorkspace func(workspace string) (WorkspaceSetup, error)

	// Jobs configures each workspace's jobs.Manager; the zero value is
	// jobs' default. Its KeyDir is also where the worker keeps the key of
	// its foreground records.
	Jobs jobs.Options

	// Session configures the bash tool's persistent sessions; the zero
	// value is session's default.
	Session session.Options

	// ForegroundTimeout makes run_command (the Call activity's) promote a
	// command still running after this long to a background job of the
	// workspace, as `shellcap serve --foreground-timeout` does: the model
	// gets the output so far and the job's ID, and the session workflow's
	// job table records it. The job's ID derives from the workflow run
	// and the activity, so a retried call waits on the job its first
	// attempt started (promoted again under the same ID) instead of
	// starting a second process. Zero never promotes; OpenWorkspace's
	// WorkspaceSetup.ForegroundTimeout replaces it.
	ForegroundTimeout time.Duration

	// HeartbeatInterval is how often a running activity heartbeats (and
	// signals progress when asked); it is also the SDK's
	// MaxHeartbeatThrottleInterval, so a cancellation reaches a command
	// within about one interval. Zero means 1 s.
	HeartbeatInterval time.Duration

	// Worker is passed to the SDK's worker.New; its
	// MaxHeartbeatThrottleInterval and DefaultHeartbeatThrottleInterval
	// are set to HeartbeatInterval unless given.
	Worker worker.Options

	// Logger receives the worker's warnings (records it refused to act
	// on, progress that could not be signalled). Nil discards them.
	Logger *slog.Logger
}

// WorkspaceSetup is what WorkerOptions.OpenWorkspace builds for one
// workspace.
type WorkspaceSetup struct {
	// Shell runs the workspace's commands; its Workspace must be the
	// workspace. Required; the worker closes it when it stops.
	Shell *shellcap.Shell

	// Jobs configures the workspace's jobs.Manager; the zero value is
	// jobs' default.
	Jobs jobs.Options

	// Session configures the bash tool's sessions; the zero value is
	// session's default.
	Session session.Options

	// ForegroundTimeout is WorkerOptions.ForegroundTimeout for the
	// workspace. Zero never promotes.
	ForegroundTimeout time.Duration
}

// Worker serves one host's workspaces on its task queue.
type Worker struct {
	opts   WorkerOptions
	ws     *workspaces
	acts   *Activities
	worker worker.Worker
}

// NewWorker builds the worker of opts.Host on client c and registers every
// activity (and the session workflow) on TaskQueue(opts.Host). It first
// sweeps every served workspace for foreground commands a previous worker
// left running when it died (see [Activities]): their process groups are
// killed.
func NewWorker(c client.Client, opts WorkerOptions) (*Worker, error) {
	if c == nil {
		return nil, errors.New("temporal: NewWorker needs a client")
	}
	if err := ValidateHost(opts.Host); err != nil {
		return nil, fmt.Errorf("temporal: invalid host %q: %w", opts.Host, err)
	}
	if opts.HeartbeatInterval < 0 {
		return nil, fmt.Errorf("temporal: negative HeartbeatInterval %v", opts.HeartbeatInterval)
	}
	if opts.ForegroundTimeout < 0 {
		return nil, fmt.Errorf("temporal: negative ForegroundTimeout %v", opts.ForegroundTimeout)
	}
	if opts.HeartbeatInterval == 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Workspaces = append([]string(nil), opts.Workspaces...)
	wk := &Worker{opts: opts}
	ws, err := newWorkspaces(&wk.opts)
	if err != nil {
		return nil, err
	}
	fg, err := newForeground(opts.Host, opts.Jobs.KeyDir, opts.Logger)
	if err != nil {
		return nil, err
	}
	for _, p := range opts.Workspaces {
		fg.sweep(p)
	}
	wo := opts.Worker
	if wo.MaxHeartbeatThrottleInterval == 0 {
		wo.MaxHeartbeatThrottleInterval = opts.HeartbeatInterval
	}
	if wo.DefaultHeartbeatThrottleInterval == 0 {
		wo.DefaultHeartbeatThrottleInterval = opts.HeartbeatInterval
	}
	acts := &Activities{host: opts.Host, ws: ws, client: c, interval: opts.HeartbeatInterval, fg: fg, logger: opts.Logger}
	w := worker.New(c, TaskQueue(opts.Host), wo)
	registerActivities(w, acts)
	registerWorkflows(w)
	wk.ws, wk.acts, wk.worker = ws, acts, w
	return wk, nil
}

func registerActivities(r worker.ActivityRegistry, a *Activities) {
	for name, fn := range map[string]any{
		ActivityRun: a.Run, ActivityStart: a.Start, ActivityCheck: a.Check, ActivityWait: a.Wait,
		ActivitySendInput: a.SendInput, ActivityStop: a.Stop, ActivityList: a.List, ActivityCall: a.Call,
		ActivityCloseConversation: a.CloseConversation, ActivityDescribe: a.Describe,
	} {
		r.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
}

// Activities returns the worker's activities.
func (w *Worker) Activities() *Activities { return w.acts }

// Start starts polling the host's task queue; it does not block.
func (w *Worker) Start() error { return w.worker.Start() }

// Run polls until interruptCh delivers (worker.InterruptCh() for SIGINT
// and SIGTERM), then stops the worker.
func (w *Worker) Run(interruptCh <-chan any) error {
	err := w.worker.Run(interruptCh)
	w.ws.close()
	return err
}

// Stop stops polling, lets running activities end (running commands are
// stopped when their contexts end: their calls are retried), and closes
// every workspace's Shell, toolset and job manager. Background jobs keep
// running.
func (w *Worker) Stop() {
	w.worker.Stop()
	w.ws.close()
}
