package temporal

import (
	"encoding/json"
	"time"

	"github.com/shellcap/shellcap"
)

// Request is one command for [Run]: shellcap.Request in a form that
// travels through Temporal.
type Request struct {
	// Command is the shell command line, run as `bash -c Command` by the
	// workspace's Shell on its host.
	Command string `json:"command"`
	// Timeout bounds the command. Zero means the worker Shell's
	// DefaultTimeout (see [CallOptions] for what bounds the activity).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Dir is the directory to start in, relative to the workspace (or
	// absolute inside it). Empty means the workspace root.
	Dir string `json:"dir,omitempty"`
	// Env adds variables for this command, under the Shell's rules.
	Env map[string]string `json:"env,omitempty"`
	// Stdin is given to the command on its standard input; empty means
	// end-of-file at once (/dev/null).
	// It travels as bytes (base64 in Temporal's JSON), so binary input
	// arrives unchanged.
	Stdin []byte `json:"stdin,omitempty"`
}

// Result is what a command run through [Run] did: every fact of
// shellcap.Result that travels as JSON, the library's exact text, and the
// host that ran it. Each field up to Timeout means what the shellcap.Result
// field of the same name means (Duration and Timeout travel in
// nanoseconds); a refused command is a [*Refusal], never a Result.
type Result struct {
	Command             string                `json:"command"`
	Stdout              string                `json:"stdout"`
	Stderr              string                `json:"stderr"`
	ExitCode            int                   `json:"exit_code"`
	Signal              string                `json:"signal,omitempty"`
	TimedOut            bool                  `json:"timed_out,omitempty"`
	Canceled            bool                  `json:"canceled,omitempty"`
	OutputLimitExceeded bool                  `json:"output_limit_exceeded,omitempty"`
	Truncated           bool                  `json:"truncated,omitempty"`
	StdoutBytes         int64                 `json:"stdout_bytes"`
	StderrBytes         int64                 `json:"stderr_bytes"`
	StdoutOmitted       int64                 `json:"stdout_omitted_bytes,omitempty"`
	StderrOmitted       int64                 `json:"stderr_omitted_bytes,omitempty"`
	StdoutFile          string                `json:"stdout_file,omitempty"`
	StderrFile          string                `json:"stderr_file,omitempty"`
	Cwd                 string                `json:"cwd"`
	LeftRunning         []int                 `json:"left_running,omitempty"`
	Sandbox             *shellcap.Enforcement `json:"sandbox,omitempty"`
	Notes               []string              `json:"notes,omitempty"`
	Duration            time.Duration         `json:"duration"`
	Timeout             time.Duration         `json:"timeout"`
	// Text is exactly what shellcap.Result.Text returned on the host:
	// what the model reads.
	Text string `json:"text"`
	// Host is the host that ran the command.
	Host string `json:"host"`
}

// resultOf copies the facts of r, run on host.
func resultOf(r *shellcap.Result, host string) Result {
	return Result{
		Command: r.Command, Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode, Signal: r.Signal,
		TimedOut: r.TimedOut, Canceled: r.Canceled, OutputLimitExceeded: r.OutputLimitExceeded, Truncated: r.Truncated,
		StdoutBytes: r.StdoutBytes, StderrBytes: r.StderrBytes, StdoutOmitted: r.StdoutOmitted, StderrOmitted: r.StderrOmitted,
		StdoutFile: r.StdoutFile, StderrFile: r.StderrFile, Cwd: r.Cwd, LeftRunning: r.LeftRunning, Sandbox: r.Sandbox,
		Notes: r.Notes, Duration: r.Duration, Timeout: r.Timeout, Text: r.Text(), Host: host,
	}
}

// Progress is how far a running command has got, as its activity
// heartbeats it and [CallOptions.OnProgress] receives it.
type Progress struct {
	// StdoutBytes and StderrBytes count the bytes printed so far.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// Tail is the end of the output so far, both streams as they arrived:
	// at most TailBytes bytes, starting on a UTF-8 boundary.
	Tail string `json:"tail,omitempty"`
	// Elapsed is the time since the activity started.
	Elapsed time.Duration `json:"elapsed"`
}

// TailBytes is the most output Progress.Tail holds.
const TailBytes = 4 << 10

// StartRequest is one background job for [Start] (jobs.StartRequest).
type StartRequest struct {
	// Command is the shell command line.
	Command string `json:"command"`
	// Stdin makes the job's stdin a pipe that [SendInput] writes to.
	// False connects /dev/null.
	Stdin bool `json:"stdin,omitempty"`
	// Dir is the directory to start in, relative to the workspace (or
	// absolute inside it). Empty means the workspace root.
	Dir string `json:"dir,omitempty"`
	// Env adds variables for this job, under the Shell's rules.
	Env map[string]string `json:"env,omitempty"`
}

// Job is a started background job.
type Job struct {
	// ID identifies the job for Check, Wait, SendInput and Stop. It
	// derives from the workflow run and the activity, so a retried start
	// finds the job its first attempt started.
	ID      string `json:"id"`
	Command string `json:"command"`
	// PID and PGID are the job's shell and its process group.
	PID  int `json:"pid,omitempty"`
	PGID int `json:"pgid,omitempty"`
	// Reattached reports that the job was already running: a retried
	// start found the job its first attempt started.
	Reattached bool `json:"reattached,omitempty"`
	// Text is what the model reads (jobs.StartResult.Text).
	Text string `json:"text"`
	// Host is the host the job runs on.
	Host string `json:"host"`
}

// JobResult reports a job, for [Check], [Wait] and [Stop].
type JobResult struct {
	// Text is what the model reads (jobs.JobResult.Text).
	Text string `json:"text"`
	// Structured is jobs.JobResult as JSON.
	Structured json.RawMessage `json:"structured,omitempty"`
	ID         string          `json:"id"`
	// Status is "running" or "finished".
	Status string `json:"status"`
	// ExitCode is the job's exit status once known.
	ExitCode *int `json:"exit_code"`
	// Host is the host the job runs on.
	Host string `json:"host"`
}

// InputResult reports input written to a job, for [SendInput].
type InputResult struct {
	// Text is what the model reads (jobs.InputResult.Text).
	Text string `json:"text"`
	// Bytes is how many bytes were written; EOF that stdin was closed.
	Bytes int  `json:"bytes"`
	EOF   bool `json:"eof,omitempty"`
	// Host is the host the job runs on.
	Host string `json:"host"`
}

// JobList lists a workspace's jobs, for [List].
type JobList struct {
	// Text is what the model reads (jobs.ListResult.Text).
	Text string `json:"text"`
	// Structured is jobs.ListResult as JSON.
	Structured json.RawMessage `json:"structured,omitempty"`
	// Host is the host of the workspace.
	Host string `json:"host"`
}
