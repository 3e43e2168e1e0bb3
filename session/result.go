package session

import (
	"encoding/json"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Result is the outcome of one [Session.Run]: the core's result (labelled
// output, exit code, timeout, notes, cwd) and whether the shell had to be
// restarted.
type Result struct {
	shellcap.Result

	// Restarted reports that the session's shell ended during this call
	// (exit, exec, a fatal signal, or no answer after an interrupt) and a
	// new one was started; a note in the text says what was kept.
	Restarted bool `json:"restarted,omitempty"`

	maxChars int // Options.MaxOutputChars as resolved; <= 0: no cap
}

// Text returns what the model should read, in the core's format
// ("[stdout]\n...", "[stderr]\n...", "(no output)", "[exit code: N]",
// "[Command timed out after Xs]", notes as "[...]" lines), within
// Options.MaxOutputChars: the beginning is dropped first, so the exit
// code and notes survive.
func (r *Result) Text() string {
	return textfmt.TruncateTail(r.Result.Text(), r.maxChars)
}

// MarshalJSON renders the core result's fields plus "restarted".
func (r *Result) MarshalJSON() ([]byte, error) {
	base, err := r.Result.MarshalJSON()
	if err != nil || !r.Restarted {
		return base, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(base, &fields); err != nil {
		return nil, err
	}
	fields["restarted"] = json.RawMessage("true")
	return json.Marshal(fields)
}
