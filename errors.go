package shellcap

import (
	"errors"
	"fmt"
	"syscall"
)

// Errors the host program acts on. Check them with [errors.Is].
var (
	// ErrInvalidOptions reports a configuration mistake found by [New].
	ErrInvalidOptions = errors.New("shellcap: invalid options")
	// ErrWorkspaceGone reports that the workspace directory no longer exists
	// or is no longer a directory.
	ErrWorkspaceGone = errors.New("shellcap: workspace is gone")
	// ErrReadOnlyWorkspace reports a Run on a workspace that offers no
	// command execution.
	ErrReadOnlyWorkspace = errors.New("shellcap: the workspace is read-only; commands cannot be run")
	// ErrClosed reports a Run after [Shell.Close].
	ErrClosed = errors.New("shellcap: shell is closed")
	// ErrStart reports that the operating system could not start the
	// command (no memory, too many processes, environment too large).
	ErrStart = errors.New("shellcap: cannot start command")
	// ErrUnsupported reports what this platform cannot do: run commands
	// at all (outside Unix), or a sandbox asked for where none exists
	// (outside Linux; New's error then also names Options.Sandbox).
	ErrUnsupported = errors.New("shellcap: not supported on this platform")
)

// Refusals: why a command did not run. [Shell.Run] does not return them
// as errors: they come back inside a [Result] whose Text is the message
// (the texts below, or a more precise one), with [Result.Err] set so that
// errors.Is works, and whose JSON has "exit_code": null. Most are problems
// the model can fix by changing its request.
var (
	// ErrDenied reports a command the policy denies (a *PolicyError).
	ErrDenied = errors.New("command denied by policy")
	// ErrNotApproved reports a command that needed approval and did not
	// get it, also when no one can approve (a *PolicyError).
	ErrNotApproved = errors.New("command not approved")
	// ErrSandbox reports that the sandbox refused a command (Result.Err),
	// or, inside a *StartError Run returns, that the sandbox's launcher
	// could not start it.
	ErrSandbox = errors.New("shellcap: sandbox")
	// ErrEmptyCommand reports a command that is empty or only whitespace.
	ErrEmptyCommand = errors.New("The command is empty.")
	// ErrNULByte reports a command holding a NUL byte.
	ErrNULByte = errors.New("The command contains a NUL byte, which cannot be passed to a process.")
	// ErrInvalidUTF8 reports a command that is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("The command is not valid UTF-8; the operating system cannot receive it unchanged.")
	// ErrCommandTooLong reports a command over the kernel's argument size limit.
	ErrCommandTooLong = errors.New("The command is too long for the operating system's argument size limit. Write long scripts to a file and run the file instead.")
	// ErrTimeoutRange reports a per-request timeout outside what the Shell allows.
	ErrTimeoutRange = errors.New("timeout out of range")
	// ErrWorkdirGone reports that the working directory of the command was
	// deleted or replaced by something that is not a directory.
	ErrWorkdirGone = errors.New("The working directory no longer exists.")
	// ErrWorkdirOutside reports a requested directory outside the workspace.
	ErrWorkdirOutside = errors.New("The requested directory is outside the workspace.")
)

// OptionError names the option that [New] rejected and why.
type OptionError struct {
	Option string // the field name in Options, e.g. "Env"
	Reason string
}

// Error returns "shellcap: option NAME: REASON".
func (e *OptionError) Error() string {
	return fmt.Sprintf("shellcap: option %s: %s", e.Option, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalidOptions) true.
func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

func optionErr(option, format string, args ...any) error {
	return &OptionError{Option: option, Reason: fmt.Sprintf(format, args...)}
}

// RequestError is a problem with a [Request] that the model can fix. It is
// carried in [Result.Err]; its message is what the model reads.
type RequestError struct {
	Kind error  // one of the model-fixable sentinels, e.g. ErrNULByte
	Msg  string // the message for the model; Kind's text when empty
}

// Error returns the message for the model (Msg, else Kind's text).
func (e *RequestError) Error() string {
	if e.Msg != "" {
		return e.Msg
	}
	return e.Kind.Error()
}

// Unwrap returns Kind, so errors.Is(err, ErrNULByte) works.
func (e *RequestError) Unwrap() error { return e.Kind }

func requestErr(kind error, format string, args ...any) *RequestError {
	if format == "" {
		return &RequestError{Kind: kind}
	}
	return &RequestError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// StartError reports that the operating system refused to start the
// command. errors.Is matches ErrStart and the underlying errno (for example
// syscall.E2BIG for an environment over the kernel's limit).
type StartError struct {
	Err error
}

// Error says that the command could not be started, and why.
func (e *StartError) Error() string {
	msg := "shellcap: cannot start command: " + e.Err.Error()
	if errors.Is(e.Err, syscall.E2BIG) {
		msg += " (the command and environment together exceed the kernel's argument size limit)"
	}
	return msg
}

// Unwrap returns ErrStart and the cause.
func (e *StartError) Unwrap() []error { return []error{ErrStart, e.Err} }
