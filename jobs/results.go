package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/textfmt"
	"github.com/shellcap/shellcap/sandbox"
)

// Status values a job reports.
const (
	StatusRunning  = "running"  // the command has not ended
	StatusFinished = "finished" // the command ended (or is known to be gone)
)

// unknownID is the model's message for an ID that names no job.
func unknownID(id string) string {
	return "[Error: unknown command ID " + textfmt.PyRepr(id) + "]"
}

// capText applies the character cap, keeping the end.
func capText(s string, maxChars int) string { return textfmt.TruncateTail(s, maxChars) }

// StartResult reports a started job, or why it was not started.
type StartResult struct {
	// ID identifies the job; empty when it was not started.
	ID string `json:"id,omitempty"`
	// Command is the command as requested.
	Command string `json:"command"`
	// PID and PGID are the command's shell and its process group.
	PID  int `json:"pid,omitempty"`
	PGID int `json:"pgid,omitempty"`
	// Dir is the job's state directory (logs and status file).
	Dir string `json:"dir,omitempty"`
	// Error, when set, is why the job was not started, for the model.
	Error string `json:"error,omitempty"`
	// Sandbox is what the sandbox enforces for the job (Options.Sandbox);
	// nil when it runs unconfined.
	Sandbox *sandbox.Report `json:"sandbox,omitempty"`

	maxChars int
}

// Text returns what the model reads:
// "Started background command: 'sleep 100'\nID: <id>", or the refusal. A
// sandboxed job adds a last line such as
// "[sandbox: workspace-write, network none]".
func (r *StartResult) Text() string {
	if r.Error != "" {
		return capText(r.Error, r.maxChars)
	}
	s := "Started background command: " + textfmt.PyRepr(r.Command) + "\nID: " + r.ID
	if r.Sandbox != nil {
		s += "\n" + sandboxLine(r.Sandbox)
	}
	return capText(s, r.maxChars)
}

// JobResult reports a job's output and state, for Check, Wait and Stop.
type JobResult struct {
	// ID is the job's ID as given.
	ID string `json:"id"`
	// Command is the job's command; empty for an unknown ID.
	Command string `json:"command,omitempty"`
	// Status is StatusRunning or StatusFinished; empty for an unknown ID.
	Status string `json:"status,omitempty"`
	// ExitCode is the command's exit status (128+N for signal N) once
	// known.
	ExitCode *int `json:"exit_code"`
	// Signal names the signal that ended the command, e.g. "SIGTERM".
	Signal string `json:"signal,omitempty"`
	// Stdout and Stderr hold the end of each stream (Output the end of the
	// combined log for Shell jobs), or with NewOnly what arrived since the
	// last look. ANSI escapes are removed unless Options.KeepANSI is set.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Output string `json:"output,omitempty"`
	// StdoutOmitted, StderrOmitted and OutputOmitted count the bytes of
	// the requested range not included.
	StdoutOmitted int64 `json:"stdout_omitted_bytes,omitempty"`
	StderrOmitted int64 `json:"stderr_omitted_bytes,omitempty"`
	OutputOmitted int64 `json:"output_omitted_bytes,omitempty"`
	// NewOnly reports that only output since the last look is included.
	NewOnly bool `json:"new_only,omitempty"`
	// WaitTimedOut reports that Wait returned because its timeout passed.
	WaitTimedOut bool `json:"wait_timed_out,omitempty"`
	// Stopped reports a Stop result; Kept that the job's files were kept.
	Stopped bool `json:"stopped,omitempty"`
	Kept    bool `json:"kept,omitempty"`
	// TimedOut reports that the job's own timeout stopped it.
	TimedOut bool `json:"timed_out,omitempty"`
	// SupervisorLost reports that the job's supervisor died before the
	// command ended, so its exit code is unknown.
	SupervisorLost bool `json:"supervisor_lost,omitempty"`
	// Dir is the job's state directory.
	Dir string `json:"dir,omitempty"`
	// Sandbox is what the sandbox enforces for the job; nil when it runs
	// unconfined. Text does not show it.
	Sandbox *sandbox.Report `json:"sandbox,omitempty"`
	// Error, when set, is the whole message for the model (unknown ID).
	Error string `json:"error,omitempty"`

	maxChars int
}

// Text returns what the model reads. Check and Wait: the labelled output
// or "(no output yet)", then "\n[status: running|finished]", then
// "\n[exit code: N]" when known. Stop: the output or "(no output)", then
// "\n[stopped]", then "\n[exit code: N]" when known. The status lines come
// last, so the character cap (which keeps the end) keeps them.
func (r *JobResult) Text() string {
	if r.Error != "" {
		return capText(r.Error, r.maxChars)
	}
	var b strings.Builder
	b.WriteString(r.sections())
	if r.TimedOut {
		b.WriteString("\n[the job's timeout stopped it]")
	}
	if r.SupervisorLost {
		b.WriteString("\n[the job's supervisor was lost; its exit code is unknown]")
	}
	if r.Stopped {
		b.WriteString("\n[stopped]")
	} else {
		b.WriteString("\n[status: " + r.Status + "]")
	}
	if r.ExitCode != nil {
		b.WriteString("\n[exit code: " + strconv.Itoa(*r.ExitCode) + "]")
	}
	return capText(b.String(), r.maxChars)
}

func (r *JobResult) sections() string {
	var parts []string
	for _, s := range []struct{ label, text string }{
		{"output", r.Output}, {"stdout", r.Stdout}, {"stderr", r.Stderr},
	} {
		if s.text != "" {
			parts = append(parts, "["+s.label+"]\n"+s.text)
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, "\n")
	case r.Stopped:
		return "(no output)"
	case r.NewOnly:
		return "(no new output)"
	}
	return "(no output yet)"
}

// InputResult reports input written to a job's stdin.
type InputResult struct {
	// ID is the job's ID as given.
	ID string `json:"id"`
	// Bytes is how many bytes were written.
	Bytes int `json:"bytes"`
	// EOF reports that the job's stdin was closed after them.
	EOF bool `json:"eof,omitempty"`
	// Error, when set, is the whole message for the model.
	Error string `json:"error,omitempty"`

	maxChars int
}

// Text returns what the model reads.
func (r *InputResult) Text() string {
	if r.Error != "" {
		return capText(r.Error, r.maxChars)
	}
	s := fmt.Sprintf("Wrote %d bytes to the stdin of command %s.", r.Bytes, r.ID)
	if r.EOF {
		s += " Its stdin is now closed (end of file)."
	}
	return s
}

// JobInfo describes one job in a List.
type JobInfo struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// Status is StatusRunning or StatusFinished.
	Status string `json:"status"`
	// ExitCode is the command's exit status once known.
	ExitCode *int `json:"exit_code"`
	// PID is the command's shell, which leads the job's process group.
	PID int `json:"pid"`
	// StartedAt and EndedAt are when the command started and ended.
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"finished_at,omitempty"`
	// Age is the time since the job started.
	Age time.Duration `json:"-"`
	// AgeMS is Age in milliseconds, for JSON.
	AgeMS int64 `json:"age_ms"`
	// Sandbox is what confines the job, nil when nothing does.
	Sandbox *sandbox.Report `json:"sandbox,omitempty"`
}

// ListResult lists the workspace's jobs, oldest first.
type ListResult struct {
	// Jobs lists the jobs, oldest first.
	Jobs []JobInfo `json:"jobs"`

	maxChars int
}

// Text returns one line per job: ID, status (with the exit code once
// known), age and command; or "(no background commands)".
func (r *ListResult) Text() string {
	if len(r.Jobs) == 0 {
		return "(no background commands)"
	}
	var b strings.Builder
	for i, j := range r.Jobs {
		if i > 0 {
			b.WriteByte('\n')
		}
		state := j.Status
		if j.ExitCode != nil {
			state += " (exit code " + strconv.Itoa(*j.ExitCode) + ")"
		}
		fmt.Fprintf(&b, "%s  %s  %s  %s", j.ID, state, textfmt.FormatSeconds(j.Age.Round(time.Second)), textfmt.PyRepr(j.Command))
	}
	return capText(b.String(), r.maxChars)
}

// Event reports a job that finished, to the functions given to
// [Manager.Subscribe].
type Event struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// ExitCode is the command's exit status; nil when it is unknown (the
	// job's supervisor was lost).
	ExitCode *int `json:"exit_code"`
	// Signal names the signal that ended the command, if one did.
	Signal string `json:"signal,omitempty"`
	// Stopped reports a job ended by Stop; TimedOut one ended by its own
	// time limit (Manager.Run with Request.Timeout).
	Stopped  bool `json:"stopped,omitempty"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Finished is when the command ended.
	Finished time.Time `json:"finished_at"`
}

// Text returns a notice for the model, e.g.
// "Background command 'make test' (ID: <id>) finished with exit code 0."
func (e Event) Text() string {
	s := "Background command " + textfmt.PyRepr(e.Command) + " (ID: " + e.ID + ") finished"
	switch {
	case e.ExitCode != nil:
		s += " with exit code " + strconv.Itoa(*e.ExitCode)
	default:
		s += "; its exit code is unknown"
	}
	return s + "."
}
