package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Limits of the persistent shell tool (pydantic-ai-harness's `shell`).
const (
	shellTailBytes    = 16_000  // bytes of the combined log a result shows
	shellEventBytes   = 16_000  // bytes of output events one call sends at most
	shellEventChunk   = 4096    // bytes per output event at most
	shellLinesMaxSize = 1 << 20 // above this, Finished events carry no line count
)

// ShellMode selects whether [Manager.ShellTool] waits for the command.
type ShellMode string

// The shell tool modes.
const (
	// Foreground waits up to the timeout and returns the log's end.
	Foreground ShellMode = "foreground"
	// Background returns the handles at once.
	Background ShellMode = "background"
)

// ShellRequest is one call of the persistent shell tool.
type ShellRequest struct {
	// Command is the shell command line.
	Command string
	// Mode is Foreground (the zero value) or Background.
	Mode ShellMode
	// Timeout is how long a Foreground call waits; the command keeps
	// running after it. Zero means the Shell's DefaultTimeout; it must be
	// at most the Shell's MaxTimeout and at most 270 s (MaxShellTimeout).
	Timeout time.Duration
	// OnEvent, when set, receives events while a Foreground call waits
	// (and the Started event in Background mode). It is called from the
	// calling goroutine.
	OnEvent func(ShellEvent)
	// ID, when set, is the job's ID, chosen by the caller, with the
	// meaning StartRequest.ID has for Manager.Start: a call whose ID
	// names a job of the same command already (started by an earlier
	// ShellTool call) starts nothing and reports that job, following it in
	// Foreground mode as if it had just started; the result has
	// Reattached set. A job of another command, or one started by Start
	// or Run, is an ErrIDConflict refusal; a malformed ID an ErrInvalidID
	// one. Empty means a fresh random ID.
	ID string
}

// ShellEventKind names a shell tool event.
type ShellEventKind string

// The shell tool events.
const (
	ShellStarted  ShellEventKind = "started"  // the command runs
	ShellOutput   ShellEventKind = "output"   // a chunk of its output
	ShellFinished ShellEventKind = "finished" // it ended
)

// ShellEvent is an event of the persistent shell tool.
type ShellEvent struct {
	Kind ShellEventKind `json:"kind"`
	// ID is the job's ID.
	ID      string `json:"id"`
	Command string `json:"command,omitempty"` // Started
	PID     int    `json:"pid,omitempty"`     // Started, Finished
	// Text is a chunk of at most 4,096 bytes of output, cut on UTF-8
	// boundaries; the chunks of one call continue each other and cover
	// at most 16,000 bytes (Output).
	Text string `json:"text,omitempty"`
	// OutputPath and StatusPath are the log and status files (Finished).
	OutputPath string `json:"output_path,omitempty"`
	StatusPath string `json:"status_path,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	// Truncated reports a log longer than the result shows (Finished).
	Truncated bool `json:"truncated,omitempty"`
	// TotalLines counts the log's lines; nil above 1 MiB (Finished).
	TotalLines *int `json:"total_lines,omitempty"`
}

// ShellResult is the outcome of a shell tool call.
type ShellResult struct {
	// ID is the job's ID (for Check, Wait and Stop).
	ID      string `json:"id,omitempty"`
	Command string `json:"command"`
	// PID is the command's shell; PGID its process group (the whole tree).
	PID  int `json:"pid,omitempty"`
	PGID int `json:"pgid,omitempty"`
	// OutputPath is the combined log; StatusPath the status file.
	OutputPath string `json:"output_path,omitempty"`
	StatusPath string `json:"status_path,omitempty"`
	// Status is the raw status file at the end of the call.
	Status json.RawMessage `json:"status,omitempty"`
	// Output is the end of the combined log (Foreground), starting at a
	// line boundary; OmittedBytes counts the log bytes before it.
	Output       string `json:"output,omitempty"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty"`
	// Finished reports that the command ended during the call (or, for
	// a re-attached job, before it).
	Finished bool `json:"finished"`
	// Reattached reports a call with ShellRequest.ID that found the job
	// already started with that ID and started nothing. For a job a Stop
	// ended and removed, Finished and ExitCode are all that is left: the
	// PID and paths are empty.
	Reattached bool `json:"reattached,omitempty"`
	// ExitCode is the command's exit status once known.
	ExitCode *int `json:"exit_code"`
	// Err, when set, is why the command was not started: a refusal of the
	// Shell (errors.Is with shellcap.ErrDenied, shellcap.ErrTimeoutRange,
	// ...) or ErrBadMode, ErrTooManyJobs; Text is its message. JSON
	// carries it as "error".
	Err error `json:"-"`

	foreground bool
	maxChars   int
}

// MarshalJSON renders Err as its message, "error".
func (r ShellResult) MarshalJSON() ([]byte, error) {
	type plain ShellResult
	return marshalReadable(struct {
		plain
		Error string `json:"error,omitempty"`
	}{plain(r), errText(r.Err)})
}

// Text returns what the model reads: for a re-attached job first the line
// "[re-attached to the command already started with this ID (ID: <id>); it was not started again]"
// (then, for one a Stop removed, only "[stopped]" and its exit code);
// in Foreground mode the log's end
// (prefixed "[... output truncated, N earlier bytes omitted]\n" when
// bytes were left out), then the raw status JSON, then the handles:
//
//	<raw status JSON>
//	PID: <pid> (use `kill -- -<pgid>` to stop the whole process tree)
//	Output: <dir>/output.log
//	Status: <dir>/status.json
//
// The handles come last, so the character cap (which keeps the end)
// never drops them.
func (r *ShellResult) Text() string {
	if r.Err != nil {
		return capText(r.Err.Error(), r.maxChars)
	}
	var b strings.Builder
	if r.Reattached {
		fmt.Fprintf(&b, "[re-attached to the command already started with this ID (ID: %s); it was not started again]\n", r.ID)
		if r.OutputPath == "" {
			b.WriteString("[stopped]")
			if r.ExitCode != nil {
				fmt.Fprintf(&b, "\n[exit code: %d]", *r.ExitCode)
			}
			return capText(b.String(), r.maxChars)
		}
	}
	if r.foreground {
		if r.OmittedBytes > 0 {
			fmt.Fprintf(&b, "[... output truncated, %d earlier bytes omitted]\n", r.OmittedBytes)
		}
		b.WriteString(r.Output)
		if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	if st := bytes.TrimSpace(r.Status); len(st) > 0 {
		b.Write(st)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "PID: %d (use `kill -- -%d` to stop the whole process tree)\nOutput: %s\nStatus: %s",
		r.PID, r.PGID, r.OutputPath, r.StatusPath)
	return capText(b.String(), r.maxChars)
}

// ShellTimeouts returns the default and the longest wait of a foreground
// Shell call for this Manager: the Shell's DefaultTimeout and MaxTimeout,
// within MaxShellTimeout. Front ends state them in the tool's schema.
func (m *Manager) ShellTimeouts() (def, max time.Duration) {
	return shellTimeouts(core.Of(m.sh).Settings)
}

// shellTimeouts are the default and the longest wait of a Foreground
// Shell call: the Shell's DefaultTimeout and MaxTimeout, within
// MaxShellTimeout (pydantic-ai-harness's bound on a foreground wait).
func shellTimeouts(st core.Settings) (def, max time.Duration) {
	max = MaxShellTimeout
	if st.MaxTimeout > 0 {
		max = min(max, st.MaxTimeout)
	}
	def = DefaultShellTimeout
	if st.DefaultTimeout > 0 {
		def = st.DefaultTimeout
	}
	return min(def, max), max
}

// ShellTool runs a command the way pydantic-ai-harness's persistent `shell`
// tool does: as a job with one combined log that keeps running after the
// call. Foreground waits up to the timeout (at most 270 s) and returns the
// last 16,000 bytes of the log; Background returns the handles at once. If
// ctx ends while a Foreground call waits, the job is stopped and its files
// removed, and ctx's error is returned.
func (m *Manager) ShellTool(ctx context.Context, req ShellRequest) (*ShellResult, error) {
	res := &ShellResult{Command: req.Command, maxChars: m.opts.MaxOutputChars}
	if req.Mode != Foreground && req.Mode != Background && req.Mode != "" {
		res.Err = refusal(ErrBadMode, "[Error: mode must be 'foreground' or 'background' (got "+textfmt.PyRepr(string(req.Mode))+")]")
		return res, nil
	}
	c := core.Of(m.sh)
	def, maxWait := shellTimeouts(c.Settings)
	timeout, err := c.Timeout(req.Timeout, def, maxWait)
	if err != nil {
		res.Err = err
		return res, nil
	}
	res.foreground = req.Mode != Background
	out, err := m.start(ctx, startConfig{command: req.Command, combined: true, id: req.ID})
	if err != nil {
		return nil, err
	}
	res.Reattached = out.reattached
	if out.final != nil {
		res.ID, res.Finished, res.ExitCode = out.final.ID, true, out.final.ExitCode
		return res, nil
	}
	if out.job == nil {
		res.Err = out.refusal
		return res, nil
	}
	j := out.job
	res.ID, res.PID, res.PGID = j.id, out.st.PID, out.st.PGID
	res.OutputPath, res.StatusPath = filepath.Join(j.dir, outputName), filepath.Join(j.dir, statusName)
	emit := func(ev ShellEvent) {
		if req.OnEvent != nil {
			ev.ID = j.id
			req.OnEvent(ev)
		}
	}
	emit(ShellEvent{Kind: ShellStarted, Command: req.Command, PID: res.PID})
	var st *status
	if res.foreground {
		st, err = m.follow(ctx, j, timeout, func(text string) { emit(ShellEvent{Kind: ShellOutput, Text: text}) })
		if ctx.Err() != nil {
			_, _ = m.Stop(context.WithoutCancel(ctx), StopRequest{ID: j.id})
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, err
		}
	}
	st, raw, err := m.refresh(j)
	if err != nil {
		return nil, err
	}
	res.Status = raw
	res.Finished, res.ExitCode = st.finished(), st.ExitCode
	if res.foreground {
		size := m.shellTail(res)
		if res.Finished {
			ev := ShellEvent{Kind: ShellFinished, PID: res.PID, OutputPath: res.OutputPath, StatusPath: res.StatusPath,
				ExitCode: st.ExitCode, Truncated: size > shellTailBytes}
			if size <= shellLinesMaxSize {
				if data, err := readJobFile(res.OutputPath, shellLinesMaxSize); err == nil {
					n := bytes.Count(data, []byte("\n"))
					if len(data) > 0 && data[len(data)-1] != '\n' {
						n++
					}
					ev.TotalLines = &n
				}
			}
			emit(ev)
		}
	}
	return res, nil
}

// follow waits until j finishes, timeout passes or ctx ends, passing the
// log's output to onOutput as it arrives (see eventDrain).
func (m *Manager) follow(ctx context.Context, j *job, timeout time.Duration, onOutput func(string)) (*status, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	d := &eventDrain{path: filepath.Join(j.dir, outputName), budget: shellEventBytes, emit: onOutput}
	defer d.flush()
	poll := 5 * time.Millisecond
	for {
		st, _, err := m.refresh(j)
		if st != nil {
			d.pull(st.StdoutDropped)
		}
		if err != nil || st.finished() {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-timer.C:
			if st, _, err := m.refresh(j); err == nil {
				d.pull(st.StdoutDropped)
			}
			return st, nil
		case <-j.done:
		case <-time.After(poll):
			poll = min(2*poll, 100*time.Millisecond)
		}
	}
}

// eventDrain turns a growing log into output events: each pull sends what
// arrived since the first byte not yet sent, until budget bytes were sent
// in the call, in chunks of at most shellEventChunk bytes cut on UTF-8
// boundaries. A character split across reads is carried over (incremental
// decoding); flush shows a character still incomplete when the call ends
// as U+FFFD.
type eventDrain struct {
	path    string
	sent    int64 // log offset of the first byte not yet sent
	budget  int64 // bytes this call may still send
	pending []byte
	emit    func(string)
}

func (d *eventDrain) pull(dropped int64) {
	if d.budget <= 0 {
		return
	}
	if d.sent < dropped {
		// The log dropped its oldest bytes (MaxLogBytes): they are gone.
		d.sent = dropped
	}
	data, err := readLogRange(d.path, d.sent, d.budget)
	if err != nil || len(data) == 0 {
		return
	}
	d.sent += int64(len(data))
	d.budget -= int64(len(data))
	buf := append(d.pending, data...)
	d.pending = nil
	for len(buf) > 0 {
		n := len(buf)
		if n > shellEventChunk {
			n = shellEventChunk
			if cut := runeCut(buf[:n]); cut > 0 {
				n = cut
			}
		} else if cut := runeCut(buf); cut < n {
			// An incomplete character at the end: wait for the rest.
			d.pending = append([]byte(nil), buf[cut:]...)
			n = cut
		}
		if n == 0 {
			break
		}
		d.emit(textfmt.ValidUTF8(string(buf[:n])))
		buf = buf[n:]
	}
}

// flush sends an incomplete character left at the end as U+FFFD.
func (d *eventDrain) flush() {
	if len(d.pending) > 0 {
		d.emit(textfmt.ValidUTF8(string(d.pending)))
		d.pending = nil
	}
}

// runeCut returns the length of the longest prefix of p that does not end
// inside a UTF-8 character (invalid bytes count as whole characters).
func runeCut(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if utf8.FullRune(p[i:]) {
				return len(p)
			}
			return i
		}
	}
	return len(p)
}

// shellTail fills res.Output with the last shellTailBytes of the log,
// starting at a line boundary, and returns the log's size.
func (m *Manager) shellTail(res *ShellResult) int64 {
	chunk, err := readLogEnd(res.OutputPath, 0, shellTailBytes, res.Finished)
	if err != nil {
		return 0
	}
	data := chunk.data
	if chunk.start > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	res.OmittedBytes = chunk.end - int64(len(data))
	res.Output = m.clean(data)
	return chunk.end
}
