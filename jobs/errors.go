package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Refusals of this package that the model can act on. A result's Err wraps
// one of them (or one of shellcap's, such as shellcap.ErrDenied,
// shellcap.ErrNeedsApproval, shellcap.ErrNULByte or
// shellcap.ErrTimeoutRange, for what the Shell refuses), so errors.Is tells
// them apart; the result's Text is the message for the model.
var (
	// ErrUnknownID: the ID names no job of the workspace (or is malformed).
	ErrUnknownID = errors.New("jobs: unknown command ID")
	// ErrTooManyJobs: Options.MaxJobs jobs are already running.
	ErrTooManyJobs = errors.New("jobs: too many background commands")
	// ErrNoStdin: the job was not started with a stdin pipe.
	ErrNoStdin = errors.New("jobs: the command takes no input")
	// ErrStdinClosed: the job's stdin is closed, or fed from its Run
	// request, or no longer usable.
	ErrStdinClosed = errors.New("jobs: the command's stdin is closed")
	// ErrJobFinished: the job has finished and reads no more input.
	ErrJobFinished = errors.New("jobs: the command has finished")
	// ErrInputTimeout: the job did not read its input in time.
	ErrInputTimeout = errors.New("jobs: the command did not read its input")
	// ErrBadMode: ShellRequest.Mode is neither Foreground nor Background.
	ErrBadMode = errors.New("jobs: bad shell mode")
	// ErrStopLock: the lock that serialises Stops of a job across
	// processes could not be taken (the key directory is not usable), so
	// the job was not stopped.
	ErrStopLock = errors.New("jobs: the stop lock cannot be taken")
	// ErrInvalidID: StartRequest.ID (or ShellRequest.ID) is not a job ID,
	// 32 lower-case hex digits; nothing was started.
	ErrInvalidID = errors.New("jobs: invalid job ID")
	// ErrIDConflict: StartRequest.ID (or ShellRequest.ID) already names a
	// job of another command (or of the same command started another way:
	// with or without stdin, as a shell-tool job or not); nothing was
	// started.
	ErrIDConflict = errors.New("jobs: the job ID names another command")
)

// refusal is a refusal of kind with the model's message msg.
func refusal(kind error, msg string) error { return &shellcap.RequestError{Kind: kind, Msg: msg} }

// unknownID is the refusal for an ID that names no job.
func unknownID(id string) error {
	return refusal(ErrUnknownID, "[Error: unknown command ID "+textfmt.PyRepr(id)+"]")
}

// tooManyJobs is the refusal of a start over MaxJobs.
func tooManyJobs(max int) error {
	return refusal(ErrTooManyJobs, "[Error: "+strconv.Itoa(max)+" background commands are already running, the most allowed. Stop one (or wait for one to finish) first.]")
}

// errText is the message of err for JSON; empty for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// marshalReadable is json.Marshal without HTML escaping: commands are full
// of < > &, and a result reads as Shell.Run's JSON does.
func marshalReadable(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
