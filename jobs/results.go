package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Status is the state a job reports.
type Status string

// The Status values.
const (
	StatusRunning  Status = "running"  // the command has not ended
	StatusFinished Status = "finished" // the command ended (or is known to be gone)
)

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
	// Err, when set, is why the job was not started: a refusal of the
	// Shell (errors.Is with shellcap.ErrDenied, shellcap.ErrNeedsApproval,
	// shellcap.ErrNULByte, ...) or of this package (ErrTooManyJobs). JSON
	// carries its message as "error".
	Err error `json:"-"`
	// Sandbox is what the Confiner enforces for the job; nil when it runs
	// unconfined.
	Sandbox *shellcap.Enforcement `json:"sandbox,omitempty"`
	// Reattached reports a Start with StartRequest.ID that found the job
	// already started with that ID and started nothing: the fields are
	// that job's. Status and ExitCode are set only then: the job's state
	// and, once known, its exit code; Stopped reports one a Stop ended
	// (PID, PGID and Dir are empty when the Stop also removed its files).
	Reattached bool   `json:"reattached,omitempty"`
	Status     Status `json:"status,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Stopped    bool   `json:"stopped,omitempty"`

	maxChars int
}

// MarshalJSON renders Err as its message, "error".
func (r StartResult) MarshalJSON() ([]byte, error) {
	type plain StartResult
	return marshalReadable(struct {
		plain
		Error string `json:"error,omitempty"`
	}{plain(r), errText(r.Err)})
}

// Text returns what the model reads:
// "Started background command: 'sleep 100'\nID: <id>", or the refusal. A
// re-attached job reads
// "Re-attached to background command: 'sleep 100' (already started with this ID; not started again)\nID: <id>"
// then its "[status: running|finished]" (or "[stopped]") and, once
// known, "[exit code: N]" line. A sandboxed job adds a last line such as
// "[sandbox: workspace-write, network none]".
func (r *StartResult) Text() string {
	if r.Err != nil {
		return capText(r.Err.Error(), r.maxChars)
	}
	s := "Started background command: " + textfmt.PyRepr(r.Command) + "\nID: " + r.ID
	if r.Reattached {
		s = "Re-attached to background command: " + textfmt.PyRepr(r.Command) +
			" (already started with this ID; not started again)\nID: " + r.ID
		if r.Stopped {
			s += "\n[stopped]"
		} else {
			s += "\n[status: " + string(r.Status) + "]"
		}
		if r.ExitCode != nil {
			s += "\n[exit code: " + strconv.Itoa(*r.ExitCode) + "]"
		}
	}
	if r.Sandbox != nil {
		s += "\n" + sandboxLine(r.Sandbox, "")
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
	Status Status `json:"status,omitempty"`
	// ExitCode is the command's exit status (128+N for signal N) once
	// known; nil while it runs, when it is unknown and when no job was
	// reported (Err).
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
	// Notes are remarks for the model on how the job ended or what its
	// logs lost (a file-size limit that ended it, log bytes a full disk
	// swallowed), each rendered as a "[...]" line before the status.
	Notes []string `json:"notes,omitempty"`
	// Dir is the job's state directory.
	Dir string `json:"dir,omitempty"`
	// Sandbox is what the Confiner enforces for the job, with what the
	// workspace check after the job quarantined; nil when it runs
	// unconfined. Text does not show it.
	Sandbox *shellcap.Enforcement `json:"sandbox,omitempty"`
	// QuarantineError says what the workspace check after the job could
	// not do, when it failed.
	QuarantineError string `json:"quarantine_error,omitempty"`
	// Err, when set, is why there is no job to report (ErrUnknownID, or
	// shellcap.ErrTimeoutRange for a Wait timeout out of range); Text is
	// its message. JSON carries it as "error".
	Err error `json:"-"`

	maxChars int
}

// MarshalJSON renders Err as its message, "error".
func (r JobResult) MarshalJSON() ([]byte, error) {
	type plain JobResult
	return marshalReadable(struct {
		plain
		Error string `json:"error,omitempty"`
	}{plain(r), errText(r.Err)})
}

// Text returns what the model reads. Check and Wait: the labelled output
// or "(no output yet)", then a "[...]" line per note, then "\n[status: running|finished]", then
// "\n[exit code: N]" when known. Stop: the output or "(no output)", then
// "\n[stopped]", then "\n[exit code: N]" when known. Within the character cap the output
// gives way first (its end is kept), then the notes and status lines, the
// first one first: the exit-code line is whole whenever the cap can hold
// it, and no trailer is cut in the middle.
func (r *JobResult) Text() string {
	if r.Err != nil {
		return capText(r.Err.Error(), r.maxChars)
	}
	var trailers []string
	for _, n := range r.Notes {
		trailers = append(trailers, "["+n+"]")
	}
	if r.TimedOut {
		trailers = append(trailers, "[the job's timeout stopped it]")
	}
	if r.SupervisorLost {
		trailers = append(trailers, "[the job's supervisor was lost; its exit code is unknown]")
	}
	if r.Stopped {
		trailers = append(trailers, "[stopped]")
	} else {
		trailers = append(trailers, "[status: "+string(r.Status)+"]")
	}
	if r.ExitCode != nil {
		trailers = append(trailers, "[exit code: "+strconv.Itoa(*r.ExitCode)+"]")
	}
	return fitTrailers(r.sections(), trailers, r.maxChars)
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
	// Err, when set, is why the input was not (all) written: ErrUnknownID,
	// ErrNoStdin, ErrJobFinished, ErrStdinClosed or ErrInputTimeout; Text
	// is its message. JSON carries it as "error".
	Err error `json:"-"`

	maxChars int
}

// MarshalJSON renders Err as its message, "error".
func (r InputResult) MarshalJSON() ([]byte, error) {
	type plain InputResult
	return marshalReadable(struct {
		plain
		Error string `json:"error,omitempty"`
	}{plain(r), errText(r.Err)})
}

// Text returns what the model reads.
func (r *InputResult) Text() string {
	if r.Err != nil {
		return capText(r.Err.Error(), r.maxChars)
	}
	s := fmt.Sprintf("Wrote %d bytes to the stdin of command %s.", r.Bytes, r.ID)
	if r.EOF {
		s += " Its stdin is now closed (end of file)."
	}
	return s
}

// ListEntry describes one job in a List.
type ListEntry struct {
	ID      string `json:"id"`
	Command string `json:"command"`
	// Status is StatusRunning or StatusFinished.
	Status Status `json:"status"`
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
	Sandbox *shellcap.Enforcement `json:"sandbox,omitempty"`
}

// ListResult lists the workspace's jobs, oldest first.
type ListResult struct {
	// Jobs lists the jobs, oldest first.
	Jobs []ListEntry `json:"jobs"`

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
		state := string(j.Status)
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
	// Tail is the end of the job's output, labelled as in a Check
	// ("[stdout]\n…", "[stderr]\n…", or "[output]\n…" for a shell-tool
	// job): at most 1,000 bytes of each log, from a line start, within
	// the Manager's MaxOutputChars; empty when it printed nothing.
	Tail string `json:"tail,omitempty"`
}

// Text returns a notice for the model, e.g.
// "Background command 'make test' (ID: <id>) finished with exit code 0."
// then, when the job printed anything, "\nThe end of its output:\n" and
// Tail. The first line names the job as "(ID: <id>)".
func (e Event) Text() string {
	s := "Background command " + textfmt.PyRepr(e.Command) + " (ID: " + e.ID + ") finished"
	switch {
	case e.ExitCode != nil:
		s += " with exit code " + strconv.Itoa(*e.ExitCode)
	default:
		s += "; its exit code is unknown"
	}
	s += "."
	if e.Tail != "" {
		s += "\nThe end of its output:\n" + strings.TrimSuffix(e.Tail, "\n")
	}
	return s
}
