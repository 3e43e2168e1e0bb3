package shellcap

import (
	"bytes"
	"encoding/json"
	"time"
)

// Result is the outcome of one command. Text renders what a model should
// read; encoding/json renders the same facts structured.
type Result struct {
	// Command is the command as requested.
	Command string `json:"command"`
	// Stdout and Stderr hold what the command printed, bounded: when a
	// stream was longer than the capture keeps, its middle is replaced by
	// a line "[... N bytes omitted ...]". ANSI escapes are removed unless
	// Options.KeepANSI is set.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// ExitCode is the shell's exit status; 128+N when a signal N ended it.
	// It is meaningless when Err is set (the command did not run): check
	// Err first. In JSON it is then null, never 0, so a host that only
	// reads the exit code cannot take a refusal for a success.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that ended the shell, e.g. "SIGTERM".
	Signal string `json:"signal,omitempty"`
	// Duration is the wall-clock time from start to the end of the drain.
	Duration time.Duration `json:"-"`
	// Timeout is the limit that applied.
	Timeout time.Duration `json:"-"`
	// TimedOut reports that the timeout expired and the command was stopped.
	TimedOut bool `json:"timed_out"`
	// Canceled reports that the caller's context ended and the command was stopped.
	Canceled bool `json:"canceled,omitempty"`
	// OutputLimitExceeded reports that the command printed more than
	// Options.MaxOutputBytes and was stopped (SIGTERM, then SIGKILL after
	// Options.KillGrace).
	OutputLimitExceeded bool `json:"output_limit_exceeded,omitempty"`
	// Truncated reports that some output is not in Stdout/Stderr or Text.
	Truncated bool `json:"truncated"`
	// StdoutBytes and StderrBytes count every byte read from each stream.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// StdoutOmitted and StderrOmitted count the bytes left out of Stdout
	// and Stderr.
	StdoutOmitted int64 `json:"stdout_omitted_bytes"`
	StderrOmitted int64 `json:"stderr_omitted_bytes"`
	// StdoutFile and StderrFile name files holding the complete stream
	// (up to Options.MaxOutputBytes) when anything was cut.
	StdoutFile string `json:"stdout_file,omitempty"`
	StderrFile string `json:"stderr_file,omitempty"`
	// Cwd is the directory the command ran in; with Options.PersistCwd,
	// the directory the next command will start in.
	Cwd string `json:"cwd"`
	// LeftRunning lists processes the command left running in the
	// background (they hold its process group).
	LeftRunning []int `json:"left_running,omitempty"`
	// Sandbox reports what the sandbox enforced, when Options.Sandbox is set.
	Sandbox *Enforcement `json:"sandbox,omitempty"`
	// Notes are remarks for the model, each rendered as a "[...]" line.
	Notes []string `json:"notes,omitempty"`
	// Err is set when the command was not run: a problem the model can
	// fix (a *RequestError), a refusal by the policy or the approver (a
	// *PolicyError) or by the sandbox (matching ErrSandbox). Text is then
	// its message, ExitCode means nothing and JSON has "exit_code": null
	// and "error". Match it with errors.Is against the sentinels
	// (ErrNULByte, ErrDenied, ...).
	Err error `json:"-"`

	// TextLimit caps Text at this many Unicode code points; zero or less
	// means no cap. HeadAndTail makes Text keep both ends of an over-long
	// text instead of its end. Every executor sets them from its settings
	// (Options.MaxOutputChars, Options.HeadAndTail).
	TextLimit   int  `json:"-"`
	HeadAndTail bool `json:"-"`
}

// resultJSON is the wire form of Result.
type resultJSON struct {
	*resultAlias
	// ExitCode shadows the alias's: null when the command did not run.
	ExitCode   *int    `json:"exit_code"`
	DurationMS int64   `json:"duration_ms"`
	TimeoutMS  int64   `json:"timeout_ms"`
	Error      *string `json:"error,omitempty"`
}

type resultAlias Result

// MarshalJSON renders durations in milliseconds, Err as its message in
// "error", and "exit_code" as null when Err is set (the command did not
// run). Its receiver is a value, so a Result marshalled as a value (in a
// slice, a map or another struct) has the same JSON as through a pointer.
func (r Result) MarshalJSON() ([]byte, error) {
	w := resultJSON{
		resultAlias: (*resultAlias)(&r),
		DurationMS:  r.Duration.Milliseconds(),
		TimeoutMS:   r.Timeout.Milliseconds(),
	}
	if r.Err != nil {
		msg := r.Err.Error()
		w.Error = &msg
	} else {
		code := r.ExitCode
		w.ExitCode = &code
	}
	// Commands are full of < > &: keep them readable.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
