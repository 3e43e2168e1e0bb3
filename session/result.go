package session

import (
	"bytes"
	"errors"
	"strconv"

	"github.com/shellcap/shellcap"
)

// Result is the outcome of one [Session.Run]: the core's result (labelled
// output, exit code, timeout, notes, cwd) and whether the shell had to be
// restarted. Its Text is the core's, within Options.MaxOutputChars and
// following Options.HeadAndTail (the embedded Result's TextLimit and
// HeadAndTail are set from them).
type Result struct {
	shellcap.Result

	// Restarted reports that the session's shell ended during this call
	// (exit, exec, a fatal signal, or no answer after an interrupt) and a
	// new one was started; a note in the text says what was kept.
	Restarted bool `json:"restarted,omitempty"`

	// Job is the number of the background job the command became when it
	// outlived Options.SoftTimeout (it is still running: ExitCode means
	// nothing); zero otherwise.
	Job int `json:"job,omitempty"`
}

// MarshalJSON renders the core result's JSON (exit_code null for a
// command that did not run, as there) plus "restarted" when it is true.
func (r Result) MarshalJSON() ([]byte, error) {
	base, err := r.Result.MarshalJSON()
	if err != nil || (!r.Restarted && r.Job == 0) {
		return base, err
	}
	// The core's JSON is an object: add the field before its closing
	// brace, keeping its field order and escaping.
	base = bytes.TrimRight(base, " \n")
	if len(base) < 2 || base[len(base)-1] != '}' {
		return nil, errNotObject
	}
	sep := ","
	if bytes.Equal(bytes.TrimSpace(base[:len(base)-1]), []byte("{")) {
		sep = ""
	}
	out := base[: len(base)-1 : len(base)-1]
	if r.Restarted {
		out = append(out, sep+`"restarted":true`...)
		sep = ","
	}
	if r.Job != 0 {
		out = append(out, sep+`"job":`+strconv.Itoa(r.Job)...)
	}
	return append(out, '}'), nil
}

var errNotObject = errors.New("session: the core result's JSON is not an object")
