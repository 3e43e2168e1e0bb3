package toolset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
)

// Result is what one tool call gives back: the text the model reads, the
// structured result beside it, and whether it is an error.
type Result struct {
	// Text is exactly what the tool's result renders for the model
	// ([shellcap.Result.Text] for a command).
	Text string
	// Notices are the finished-job notices of the conversation not yet
	// told to the model, one bracketed line each followed by the end of
	// the job's output; empty when there are none. A host shows them after
	// Text, in a block of their own (see [Result.ModelText]).
	Notices string
	// Structured is the structured result (it marshals to JSON matching
	// the tool's OutputSchema, when it has one); nil for a call that could
	// not be carried out.
	Structured any
	// Run is the command's result, for a host that maps it onto its own
	// output shape (exit code, timed out, truncation): set by run_command
	// (unless the command was promoted to a job) and by bash when a
	// command ran or was refused; nil otherwise.
	Run *shellcap.Result
	// Err is why the call did not do what was asked (a refused command,
	// an unknown job ID, a bad argument, a host-side failure); nil when it
	// did, including a command that ran and exited non-zero.
	Err error
	// IsError is Err != nil: the one place that derives a transport's
	// error flag (MCP isError, Anthropic is_error).
	IsError bool
	// Pending, when set, means the call ended waiting for the user's
	// answer (Hooks.Interrupt): nothing ran. Call again with the same
	// arguments and Hooks.Answer set to the user's answer to it.
	Pending *Question

	notices  bool     // the result comes with the conversation's notices
	reported []string // jobs the result itself reports finished
}

// ModelText is Text, then the notices, if any, on lines of their own.
func (r *Result) ModelText() string {
	if r.Notices == "" {
		return r.Text
	}
	return r.Text + "\n" + r.Notices
}

// resultError is the error a tool's result reports, nil when the
// operation did what was asked (a command that ran and exited non-zero
// did: its exit code is in the text): a refused or unrunnable command
// (Result.Err), an unknown job ID or an argument out of range (the job
// results' error), or a bad call (an error).
func resultError(res any) error {
	switch r := res.(type) {
	case nil:
		return nil
	case error:
		return r
	case *shellcap.Result:
		return r.Err
	case *session.Result:
		return r.Err
	case bashResult:
		return r.res.Err
	case *jobs.StartResult:
		return r.Err
	case *jobs.JobResult:
		return r.Err
	case *jobs.InputResult:
		return r.Err
	case *jobs.ShellResult:
		return r.Err
	}
	return nil
}

// newResult is every result a tool returns: the text, the structured
// result, and Err and IsError derived from res by resultError.
func newResult(text string, structured any, res any) *Result {
	err := resultError(res)
	r := &Result{Text: text, Structured: structured, Err: err, IsError: err != nil}
	switch v := res.(type) {
	case *shellcap.Result:
		r.Run = v
	case bashResult:
		r.Run = &v.res.Result
	}
	return r
}

// errorResult is the result of a call that could not be carried out: a
// bad argument, an unknown session, a toolset shutting down.
func errorResult(msg string) *Result {
	return newResult(msg, nil, errors.New(msg))
}

// callError decides what becomes of an error an executor returned instead
// of a result (Shell.Run, a session, the job Manager): it is the one place
// that chooses between a result and an error of the call.
//
// A host-side failure the model can act on is a result with IsError and a
// message saying what happened and what to do: a workspace that vanished,
// bash missing from the PATH, a closed Shell or session, too many open
// files, a sandbox that cannot start a command. Only a call that was
// cancelled stays an error: no one is waiting to read a result.
func (ts *Toolset) callError(err error) (*Result, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return errorResult(ts.hostMessage(err)), nil
}

// hostMessage words a host-side failure for the model.
func (ts *Toolset) hostMessage(err error) string {
	ws := ts.opts.Shell.Workspace()
	switch {
	case errors.Is(err, shellcap.ErrWorkspaceGone) || workspaceGone(ws):
		return fmt.Sprintf("The server could not carry out this call: the workspace %s no longer exists or is not a directory (it was removed or replaced while the server runs). No command can run until it is restored; ask the user to recreate it or restart the server on an existing directory.", ws)
	case errors.Is(err, shellcap.ErrReadOnlyWorkspace):
		return "The server could not carry out this call: the workspace is read-only, so commands cannot be run here."
	case errors.Is(err, shellcap.ErrClosed), errors.Is(err, jobs.ErrClosed):
		return "The server could not carry out this call: the server is shutting down."
	case errors.Is(err, session.ErrClosed):
		return "The server could not carry out this call: this bash session is closed (its MCP session ended or the server is shutting down). Reconnect, or use run_command."
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "The server could not carry out this call: the server has too many open files. Stop background commands you no longer need (list_commands, stop_command) and retry."
	case errors.Is(err, shellcap.ErrSandbox):
		return fmt.Sprintf("The server could not carry out this call: the sandbox could not start it (%v). Retry; if it fails again, tell the user.", err)
	}
	return fmt.Sprintf("The server could not carry out this call: %v", err)
}

// workspaceGone reports that the workspace directory is missing or no
// longer a directory.
func workspaceGone(ws string) bool {
	fi, err := os.Stat(ws)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	return !fi.IsDir()
}
