package temporal

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// Refusal kinds: the type of the non-retryable application error an
// activity fails with when it refused a call, and [Refusal.Kind].
const (
	// KindDenied: the policy denies the command (shellcap.ErrDenied).
	KindDenied = "shellcap.Denied"
	// KindNotApproved: the command needs an approval it did not get
	// (shellcap.ErrNotApproved).
	KindNotApproved = "shellcap.NotApproved"
	// KindSandbox: the sandbox refused the command (shellcap.ErrSandbox).
	KindSandbox = "shellcap.Sandbox"
	// KindBadRequest: the request is one the model can fix (an empty
	// command, a NUL byte, a timeout out of range, a directory outside the
	// workspace, a bad tool argument).
	KindBadRequest = "shellcap.BadRequest"
	// KindSpawn: the operating system could not start the command
	// (shellcap.ErrStart).
	KindSpawn = "shellcap.Spawn"
	// KindUnknownWorkspace: the worker does not serve the workspace
	// ([ErrUnknownWorkspace]).
	KindUnknownWorkspace = "shellcap.UnknownWorkspace"
	// KindUnknownJob: no job has the ID (jobs.ErrUnknownID).
	KindUnknownJob = "shellcap.UnknownJob"
	// KindJob: the job cannot do what was asked (too many jobs, no stdin,
	// stdin closed, finished, input not read, the stop lock, a job ID
	// that names another command).
	KindJob = "shellcap.Job"
	// KindUnknownTool: the toolset has no such tool (toolset.ErrUnknownTool).
	KindUnknownTool = "shellcap.UnknownTool"
)

// ErrInvalidHost reports a host name a task queue cannot be named after.
var ErrInvalidHost = errors.New("a host name is 1-64 letters, digits, '.', '_' or '-'")

// ErrUnknownWorkspace reports a call for a workspace the worker does not
// serve (WorkerOptions.Workspaces), or on a host it is not.
var ErrUnknownWorkspace = errors.New("the workspace is not served by this worker")

// Refusal is a call the host refused: nothing ran, and Text is exactly what
// the model reads. The workflow-side functions return it for the
// activity's non-retryable application errors of the kinds above.
type Refusal struct {
	// Kind is one of the Kind constants.
	Kind string
	// Text is the message for the model.
	Text string

	sentinel string
	cause    error
}

// Error returns Text.
func (r *Refusal) Error() string { return r.Text }

// ApplicationError returns the refusal as the non-retryable application
// error of its kind, for a workflow that ends with it: returned as it is,
// a *Refusal would fail the workflow with a retryable error of type
// "Refusal" (Temporal's failure converter knows only its own error types).
// Its caller, a parent workflow or a client, finds with errors.As a
// *temporal.ApplicationError whose Type is Kind and whose Message is Text.
func (r *Refusal) ApplicationError() error {
	return refuseKind(r.Kind, r.sentinel, r.Text)
}

// Unwrap returns the Temporal error the refusal came in.
func (r *Refusal) Unwrap() error { return r.cause }

// Is matches the sentinel of the refusal's cause on the host:
// errors.Is(err, shellcap.ErrDenied), jobs.ErrUnknownID, shellcap.ErrNULByte,
// ErrUnknownWorkspace, ...
func (r *Refusal) Is(target error) bool {
	if s, ok := sentinels[r.sentinel]; ok && s == target {
		return true
	}
	switch r.Kind {
	case KindDenied:
		return target == shellcap.ErrDenied
	case KindNotApproved:
		return target == shellcap.ErrNotApproved
	case KindSandbox:
		return target == shellcap.ErrSandbox
	case KindSpawn:
		return target == shellcap.ErrStart
	case KindUnknownWorkspace:
		return target == ErrUnknownWorkspace
	case KindUnknownJob:
		return target == jobs.ErrUnknownID
	case KindUnknownTool:
		return target == toolset.ErrUnknownTool
	}
	return false
}

// sentinels names every sentinel a refusal may carry across the wire.
var sentinels = map[string]error{
	"ErrDenied":              shellcap.ErrDenied,
	"ErrNotApproved":         shellcap.ErrNotApproved,
	"ErrSandbox":             shellcap.ErrSandbox,
	"ErrEmptyCommand":        shellcap.ErrEmptyCommand,
	"ErrNULByte":             shellcap.ErrNULByte,
	"ErrInvalidUTF8":         shellcap.ErrInvalidUTF8,
	"ErrCommandTooLong":      shellcap.ErrCommandTooLong,
	"ErrTimeoutRange":        shellcap.ErrTimeoutRange,
	"ErrWorkdirGone":         shellcap.ErrWorkdirGone,
	"ErrWorkdirOutside":      shellcap.ErrWorkdirOutside,
	"ErrStart":               shellcap.ErrStart,
	"ErrReadOnlyWorkspace":   shellcap.ErrReadOnlyWorkspace,
	"jobs.ErrUnknownID":      jobs.ErrUnknownID,
	"jobs.ErrTooManyJobs":    jobs.ErrTooManyJobs,
	"jobs.ErrNoStdin":        jobs.ErrNoStdin,
	"jobs.ErrStdinClosed":    jobs.ErrStdinClosed,
	"jobs.ErrJobFinished":    jobs.ErrJobFinished,
	"jobs.ErrInputTimeout":   jobs.ErrInputTimeout,
	"jobs.ErrBadMode":        jobs.ErrBadMode,
	"jobs.ErrStopLock":       jobs.ErrStopLock,
	"jobs.ErrInvalidID":      jobs.ErrInvalidID,
	"jobs.ErrIDConflict":     jobs.ErrIDConflict,
	"toolset.ErrUnknownTool": toolset.ErrUnknownTool,
	"ErrUnknownWorkspace":    ErrUnknownWorkspace,
	"ErrRequestTooLarge":     ErrRequestTooLarge,
	"ErrInvalidOptions":      shellcap.ErrInvalidOptions,
}

// classify names the kind and the sentinel of a refusal err on the host.
func classify(err error) (kind, sentinel string) {
	for name, s := range sentinels {
		if errors.Is(err, s) {
			sentinel = name
			break
		}
	}
	switch {
	case errors.Is(err, shellcap.ErrDenied):
		kind = KindDenied
	case errors.Is(err, shellcap.ErrNotApproved):
		kind = KindNotApproved
	case errors.Is(err, shellcap.ErrSandbox):
		kind = KindSandbox
	case errors.Is(err, shellcap.ErrStart):
		kind = KindSpawn
	case errors.Is(err, ErrUnknownWorkspace):
		kind = KindUnknownWorkspace
	case errors.Is(err, jobs.ErrUnknownID):
		kind = KindUnknownJob
	case errors.Is(err, jobs.ErrTooManyJobs), errors.Is(err, jobs.ErrNoStdin), errors.Is(err, jobs.ErrStdinClosed),
		errors.Is(err, jobs.ErrJobFinished), errors.Is(err, jobs.ErrInputTimeout), errors.Is(err, jobs.ErrStopLock),
		errors.Is(err, jobs.ErrIDConflict), errors.Is(err, jobs.ErrInvalidID):
		kind = KindJob
	default:
		kind = KindBadRequest
	}
	return kind, sentinel
}

// refusalDetails travels as the application error's details.
type refusalDetails struct {
	Sentinel string `json:"sentinel,omitempty"`
}

// refuse is the non-retryable application error for a refusal whose
// message for the model is text and whose cause on the host is err.
func refuse(text string, err error) error {
	kind, sentinel := classify(err)
	return refuseKind(kind, sentinel, text)
}

func refuseKind(kind, sentinel, text string) error {
	return temporal.NewNonRetryableApplicationError(text, kind, nil, refusalDetails{Sentinel: sentinel})
}

// refusalOf turns an activity's error, as a workflow sees it, into a
// *Refusal when it is one; other errors are returned as they are.
func refusalOf(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || !isKind(app.Type()) {
		return err
	}
	var d refusalDetails
	if app.HasDetails() {
		_ = app.Details(&d)
	}
	return &Refusal{Kind: app.Type(), Text: app.Message(), sentinel: d.Sentinel, cause: err}
}

func isKind(t string) bool {
	switch t {
	case KindDenied, KindNotApproved, KindSandbox, KindBadRequest, KindSpawn, KindUnknownWorkspace, KindUnknownJob, KindJob, KindUnknownTool:
		return true
	}
	return false
}
