package jobs

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// RunResult is the outcome of [Manager.Run]: the command's Result when it
// finished in the foreground, or the job it became.
type RunResult struct {
	// Result is set when the command finished (or was refused: Result.Err)
	// within the foreground timeout; its Text is what Shell.Run would have
	// said, within the Shell's TextLimit and HeadAndTail.
	Result *shellcap.Result `json:"result,omitempty"`
	// Promoted reports that the command was still running after the
	// foreground timeout and continues as job ID.
	Promoted bool   `json:"promoted,omitempty"`
	ID       string `json:"id,omitempty"`
	// After is how long the command ran in the foreground.
	After time.Duration `json:"-"`
	// Stdout and Stderr are the output so far of a promoted command.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// Sandbox is what the Confiner enforces for a promoted command; a
	// finished one has it in Result.Sandbox.
	Sandbox *shellcap.Enforcement `json:"sandbox,omitempty"`
	// Reattached reports a RunWithID whose ID named a job already: this
	// call started nothing and reports that job.
	Reattached bool `json:"reattached,omitempty"`

	maxChars int
}

// Text returns what the model reads: the Result's text, or for a promoted
// command the output so far, how to check, wait on and stop the job, and
// "[status: running]" last. Within the character cap the output gives way
// first, then the note shortens to the job's ID alone, then the status
// line goes; no line is cut in the middle while the cap can hold the
// shortest one.
func (r *RunResult) Text() string {
	if !r.Promoted {
		if r.Result == nil {
			return ""
		}
		return r.Result.Text() // within its TextLimit, with its HeadAndTail
	}
	body := (&JobResult{Stdout: r.Stdout, Stderr: r.Stderr}).sections()
	long := "[The command is still running after " + textfmt.FormatSeconds(r.After.Round(time.Millisecond)) +
		" and continues in the background as command ID " + r.ID + ". Check its new output with check_command (new_only), " +
		"wait for it with wait_command, stop it with stop_command.]"
	short := "[It continues in the background as command ID " + r.ID + ".]"
	const status = "[status: running]"
	if r.maxChars <= 0 {
		return joinLines(body, []string{long, status})
	}
	// The longest trailers that leave some output (as Result.Text keeps
	// minOutputChars), then the longest that fit at all: the job's ID
	// outlives the status line, which outlives the output.
	least := min(utf8.RuneCountInString(body), 64)
	for _, least := range []int{least, 0} {
		for _, trailers := range [][]string{{long, status}, {short, status}, {short}} {
			if utf8.RuneCountInString(strings.Join(trailers, "\n"))+1+least <= r.maxChars {
				return fitTrailers(body, trailers, r.maxChars)
			}
		}
	}
	return fitTrailers(body, []string{short}, r.maxChars)
}

// Run runs a command as a job and waits for it up to foreground. If it
// finishes in time, the result reads like [shellcap.Shell.Run]'s; if not, it
// keeps running as a background job and the result gives its ID and the
// output so far (later Checks with new_only continue from there). A command
// that starts with `timeout N` is waited on for at least N (plus a second
// for timeout to report). A zero foreground waits for the command to end.
//
// req.Timeout, when set, is the job's own time limit, enforced even after
// promotion, and must lie within the Shell's MaxTimeout (else Result.Err
// wraps shellcap.ErrTimeoutRange, with the Shell's message); zero means
// none, since a background job has none. Options.PersistCwd of the Shell
// does not apply.
//
// req.Stdin, when set, is copied into the job's stdin (a pipe, as with
// StartRequest.Stdin), followed by end-of-file when the reader ends. The
// copy runs in this process and outlives a promotion, until the reader
// ends, the job ends or [Manager.Close]; if this process dies first, the
// job's stdin stays open without end-of-file (Stop still ends the job).
// The job takes no Input meanwhile. A reader whose Read blocks holds one
// goroutine until it returns, as with os/exec.
//
// req.OnStart, when set, is called once the job has started, with the PID
// of its shell, which leads the job's process group (a promoted job keeps
// running in it).
//
// req.OnOutput, when set, receives the job's stdout and stderr as they
// reach its logs, each stream in order, while Run waits in the foreground;
// it is called from Run's goroutine, never after Run returns (a promoted
// command's later output is for Check). Output beyond half of
// Options.MaxLogBytes between two looks (a tenth of a second at most) is
// not passed on.
func (m *Manager) Run(ctx context.Context, req shellcap.Request, foreground time.Duration) (*RunResult, error) {
	return m.RunWithID(ctx, "", req, foreground)
}

// RunWithID is Run with a caller-chosen job ID (as StartRequest.ID: 32
// lower-case hex digits, jobs.DeriveID makes one; anything else is a
// Result whose Err says why), for a host that may repeat the call (a
// retried durable activity). When a job of that ID exists already, the
// repeated call starts nothing: it waits on that job as Run waits on its
// own (so a command the first call promoted is promoted again, with the
// same ID) and RunResult.Reattached is set; its req.Stdin is not fed
// again. A job stopped since is reported by its recorded final result.
// A command that finished in the foreground is removed with its job (as
// Run removes it, unless its output was cut), so a call repeated after
// that runs it again. Empty id is Run.
func (m *Manager) RunWithID(ctx context.Context, id string, req shellcap.Request, foreground time.Duration) (*RunResult, error) {
	if foreground < 0 {
		return nil, errors.New("jobs: Run: negative foreground timeout")
	}
	res := &RunResult{maxChars: m.opts.MaxOutputChars}
	if req.Timeout != 0 {
		c := core.Of(m.sh)
		if _, err := c.Timeout(req.Timeout, 0, c.Settings.MaxTimeout); err != nil {
			res.Result = m.newResult(req)
			res.Result.Err = err
			return res, nil
		}
	}
	began := time.Now()
	out, err := m.start(ctx, startConfig{command: req.Command, dir: req.Dir, env: req.Env, timeout: req.Timeout, stdin: req.Stdin != nil, id: id})
	if err != nil {
		return nil, err
	}
	res.Reattached = out.reattached
	if out.job == nil && out.final != nil { // stopped since the first call
		res.Result = m.runResult(req, out.final, 0)
		return res, nil
	}
	if out.job == nil {
		res.Result = m.newResult(req)
		res.Result.Err = out.refusal
		return res, nil
	}
	j := out.job
	j.quiet.Store(true) // finished in the foreground, the result says so
	if req.OnStart != nil {
		req.OnStart(out.st.PID) // the job's shell leads the job's group
	}
	var feed *stdinFeed
	if req.Stdin != nil && !out.reattached {
		feed = m.feedStdin(j, req.Stdin)
	}
	follow := newLogFollower(j.dir, req.OnOutput, m.opts.MaxLogBytes)
	wait := foreground
	if n, ok := timeoutPrefix(req.Command); ok && foreground > 0 {
		wait = max(wait, n+time.Second)
	}
	if wait == 0 {
		wait = MaxWait * 1000 // the job ends by itself, by its timeout or by ctx
	}
	st, timedOut, err := m.waitFinished(ctx, j, wait, follow.forward)
	if err != nil {
		feed.stop(feedDrain)
		return nil, err
	}
	res.After = time.Since(began)
	if ctx.Err() != nil {
		stopped, err := m.Stop(context.WithoutCancel(ctx), StopRequest{ID: j.id})
		feed.stop(feedDrain)
		if err != nil {
			return nil, err
		}
		res.Result = m.runResult(req, stopped, res.After)
		res.Result.Canceled = true
		res.Result.Notes = append(res.Result.Notes, "Command was cancelled; its process group was stopped.")
		return res, nil
	}
	if timedOut && !st.finished() {
		j.quiet.Store(false)         // the model should hear when it ends
		rep := m.report(j, st, true) // marks what the model saw for new_only
		res.Promoted, res.ID, res.Stdout, res.Stderr, res.Sandbox = true, j.id, rep.Stdout, rep.Stderr, st.Sandbox
		return res, nil // the stdin feed, if any, goes on
	}
	feed.stop(feedDrain) // the job is gone: nothing reads any more
	rep := m.report(j, st, false)
	if core.Of(m.sh).Settings.HeadAndTail {
		m.headAndTail(j, st, rep)
	}
	totals := m.budgets(j, st, rep)
	res.Result = m.runResult(req, rep, res.After)
	if totals.stdout >= 0 {
		res.Result.StdoutBytes = totals.stdout
	}
	if totals.stderr >= 0 {
		res.Result.StderrBytes = totals.stderr
	}
	if rep.StdoutOmitted > 0 || rep.StderrOmitted > 0 {
		// Keep the logs for the model to search; retention removes them.
		res.Result.Truncated = true
		var kept []string
		if rep.StdoutOmitted > 0 {
			res.Result.StdoutFile = filepath.Join(j.dir, stdoutName)
			kept = append(kept, "full stdout: "+res.Result.StdoutFile)
		}
		if rep.StderrOmitted > 0 {
			res.Result.StderrFile = filepath.Join(j.dir, stderrName)
			kept = append(kept, "full stderr: "+res.Result.StderrFile)
		}
		res.Result.Notes = append(res.Result.Notes, "Output truncated; "+strings.Join(kept, "; ")+" (grep it or read parts with sed -n 'A,Bp')")
	} else {
		m.remove(j)
	}
	return res, nil
}

// newResult is the shellcap.Result of a Run command, before it ran: what
// the model reads of it stays within the Shell's limits (TextLimit from
// Options.MaxOutputChars, the Shell's HeadAndTail).
func (m *Manager) newResult(req shellcap.Request) *shellcap.Result {
	return &shellcap.Result{
		Command:     req.Command,
		Timeout:     req.Timeout,
		Cwd:         m.sh.Workspace(),
		TextLimit:   m.opts.MaxOutputChars,
		HeadAndTail: core.Of(m.sh).Settings.HeadAndTail,
	}
}

// headAndTail replaces the end of each log in rep by its beginning and its
// end, for a Result whose Text keeps both (the Shell's HeadAndTail).
func (m *Manager) headAndTail(j *job, st *status, rep *JobResult) {
	for _, t := range []struct {
		name    string
		dropped int64
		text    *string
		omitted *int64
	}{{stdoutName, st.StdoutDropped, &rep.Stdout, &rep.StdoutOmitted}, {stderrName, st.StderrDropped, &rep.Stderr, &rep.StderrOmitted}} {
		if *t.omitted == 0 {
			continue
		}
		head, tail, omitted, err := readHeadTail(filepath.Join(j.dir, t.name), m.opts.readWindow(), t.dropped)
		if err != nil || len(head) == 0 {
			continue
		}
		*t.text = m.clean(head) + m.clean(tail)
		*t.omitted = omitted
	}
}

// runResult turns a finished job's report into a shellcap.Result.
func (m *Manager) runResult(req shellcap.Request, rep *JobResult, took time.Duration) *shellcap.Result {
	r := m.newResult(req)
	r.Stdout, r.Stderr, r.ExitCode, r.Signal = rep.Stdout, rep.Stderr, -1, rep.Signal
	r.Duration, r.TimedOut = took, rep.TimedOut
	r.StdoutOmitted, r.StderrOmitted = rep.StdoutOmitted, rep.StderrOmitted
	if rep.ExitCode != nil {
		r.ExitCode = *rep.ExitCode
	}
	r.StdoutBytes = int64(len(rep.Stdout)) + rep.StdoutOmitted
	r.StderrBytes = int64(len(rep.Stderr)) + rep.StderrOmitted
	if rep.SupervisorLost {
		r.Notes = append(r.Notes, "The job's supervisor was lost; the exit code is unknown.")
	}
	r.Notes = append(r.Notes, rep.Notes...)
	r.Sandbox = rep.Sandbox
	if rep.QuarantineError != "" {
		r.Notes = append(r.Notes, "sandbox: the workspace check after the command failed: "+rep.QuarantineError)
	}
	return r
}

// timeoutPrefix returns N for a command that starts with `timeout [opts] N`.
func timeoutPrefix(command string) (time.Duration, bool) {
	f := strings.Fields(command)
	if len(f) < 2 || (f[0] != "timeout" && !strings.HasSuffix(f[0], "/timeout")) {
		return 0, false
	}
	for i := 1; i < len(f); i++ {
		a := f[i]
		switch {
		case a == "--":
			continue
		case a == "-s" || a == "--signal" || a == "-k" || a == "--kill-after":
			i++ // the option's value
			continue
		case strings.HasPrefix(a, "-") && len(a) > 1 && (a[1] < '0' || a[1] > '9'):
			continue // --preserve-status, --foreground, -v, -sKILL, --signal=KILL ...
		}
		return parseTimeoutDuration(a)
	}
	return 0, false
}

// parseTimeoutDuration parses timeout(1)'s DURATION: a number with an
// optional s, m, h or d suffix.
func parseTimeoutDuration(s string) (time.Duration, bool) {
	unit := time.Second
	switch {
	case strings.HasSuffix(s, "s"):
		s = s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		s, unit = s[:len(s)-1], time.Minute
	case strings.HasSuffix(s, "h"):
		s, unit = s[:len(s)-1], time.Hour
	case strings.HasSuffix(s, "d"):
		s, unit = s[:len(s)-1], 24*time.Hour
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1e6 {
		return 0, false
	}
	return time.Duration(v * float64(unit)), true
}
