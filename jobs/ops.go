package jobs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// inputTimeout bounds an Input whose context has no deadline: a job that
// does not read its stdin cannot block the caller for longer.
const inputTimeout = 10 * time.Second

// StartRequest is one job to start.
type StartRequest struct {
	// Command is the shell command line, run as the Shell runs commands
	// (`bash -c Command` with its limits and environment).
	Command string
	// Stdin makes the job's stdin a pipe that Input writes to. False
	// connects /dev/null.
	Stdin bool
	// Dir is the directory to start in, relative to the workspace (or
	// absolute inside it). Empty means the workspace root.
	Dir string
	// Env adds variables for this job, under the Shell's rules.
	Env map[string]string
	// ID, when set, is the job's ID, chosen by the caller so that
	// starting it again is safe: 32 lower-case hex digits (DeriveID makes
	// one from, say, a workflow run ID and an activity ID). Empty means a
	// fresh random ID. See [Manager.Start]. Workspaces that share a
	// KeyDir must not share IDs (the key directory keeps a stopped job's
	// final result by ID alone): derive an ID from something that names
	// the workspace's call, not from a name every workspace uses.
	ID string
}

// Start starts a background job. A command the Shell refuses, a bad Dir
// and a full MaxJobs come back as a StartResult whose Text says why; the
// error is for the host (closed Manager or Shell, a supervisor that cannot
// be started, a start lock that cannot be taken).
//
// With req.ID set, Start is idempotent. When a job with that ID exists in
// the workspace (running or finished, started by this Manager or by
// another one on the same workspace and KeyDir, also in a process that
// has since died; or stopped and removed, with its final result recorded;
// until Retention removes the job or that result), Start starts nothing
// and returns that job's StartResult with Reattached set, its Status and,
// once known, its ExitCode: a finished job is reported, never run again. The existing job must be of the same
// command (with the same Stdin); otherwise the result's Err wraps
// ErrIDConflict. An ID that is not 32 lower-case hex digits comes back as
// a result whose Err wraps ErrInvalidID. Concurrent Starts of one ID, in
// this process or others, serialise on a lock file in KeyDir
// (job-<id>.start) and launch one process. A job directory left by a
// launch that never reported (its host was killed mid-launch) is waited
// for up to the launch timeout (35 s after it last changed) and then
// removed and started afresh, so a second process never starts while the
// first may run. A re-attaching Start is not admitted by the policy
// again: it runs nothing.
func (m *Manager) Start(ctx context.Context, req StartRequest) (*StartResult, error) {
	out, err := m.start(ctx, startConfig{command: req.Command, dir: req.Dir, env: req.Env, stdin: req.Stdin, id: req.ID})
	if err != nil {
		return nil, err
	}
	res := &StartResult{Command: req.Command, Err: out.refusal, Reattached: out.reattached, maxChars: m.opts.MaxOutputChars}
	switch {
	case out.job != nil:
		res.ID, res.PID, res.PGID, res.Dir = out.job.id, out.st.PID, out.st.PGID, out.job.dir
		res.Sandbox = out.st.Sandbox
		if out.reattached {
			res.Status, res.ExitCode, res.Stopped = StatusRunning, out.st.ExitCode, out.st.Stopped
			if out.st.finished() {
				res.Status = StatusFinished
			}
		}
	case out.final != nil:
		res.ID, res.Status, res.ExitCode, res.Sandbox = out.final.ID, StatusFinished, out.final.ExitCode, out.final.Sandbox
		res.Stopped = true
	}
	return res, nil
}

// lookup finds job id and reads its current status; a nil job means the
// ID is unknown (or its state can no longer be read).
func (m *Manager) lookup(id string) (*job, *status) {
	j := m.find(id)
	if j == nil {
		return nil, nil
	}
	st, _, err := m.refresh(j)
	if err != nil {
		return nil, nil
	}
	return j, st
}

// CheckRequest asks [Manager.Check] about one job.
type CheckRequest struct {
	// ID is the job's ID.
	ID string
	// NewOnly asks for only the output that arrived since the last Check,
	// Wait or Stop through this Manager (or a Manager before it). False
	// means the end of each stream within the output cap.
	NewOnly bool
}

// Check reports a job's status, its exit code once known, and the end of
// each stream within the output cap (or, with req.NewOnly, only what
// arrived since the last look). An unknown or malformed ID comes back as a
// result whose Err wraps ErrUnknownID and whose Text is
// "[Error: unknown command ID '...']".
func (m *Manager) Check(ctx context.Context, req CheckRequest) (*JobResult, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	j, st := m.lookup(req.ID)
	if j == nil {
		return m.unknown(req.ID), nil
	}
	return m.report(j, st, req.NewOnly), nil
}

// Wait blocks until the job finishes, the timeout passes or ctx ends, then
// reports like Check. Zero timeout means DefaultWait (30 s); it must not
// exceed MaxWait (a result whose Err wraps shellcap.ErrTimeoutRange, with
// the Shell's timeout message). Waiting runs nothing, so the Shell's
// MaxTimeout, which bounds how long a command may run, does not bound it.
func (m *Manager) Wait(ctx context.Context, id string, timeout time.Duration) (*JobResult, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	timeout, err := core.Of(m.sh).Timeout(timeout, DefaultWait, MaxWait)
	if err != nil {
		return &JobResult{ID: id, Err: err, maxChars: m.opts.MaxOutputChars}, nil
	}
	j := m.find(id)
	if j == nil {
		return m.unknown(id), nil
	}
	st, waitTimedOut, err := m.waitFinished(ctx, j, timeout, nil)
	if err != nil {
		return m.unknown(id), nil
	}
	res := m.report(j, st, false)
	res.WaitTimedOut = waitTimedOut
	return res, nil
}

// waitFinished polls j until it finishes or timeout or ctx ends. After
// each look at the status it calls polled, when set, from this goroutine;
// a status seen finished means the logs are complete.
func (m *Manager) waitFinished(ctx context.Context, j *job, timeout time.Duration, polled func()) (*status, bool, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	poll := 5 * time.Millisecond
	look := func() (*status, error) {
		st, _, err := m.refresh(j)
		if polled != nil {
			polled()
		}
		return st, err
	}
	for {
		st, err := look()
		if err != nil || st.finished() {
			return st, false, err
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return st, true, nil
		case <-timer.C:
			st, err := look()
			return st, err == nil && !st.finished(), err
		case <-time.After(poll):
			poll = min(2*poll, 100*time.Millisecond)
		}
	}
}

// InputRequest is input for [Manager.Input].
type InputRequest struct {
	// ID is the job's ID.
	ID string
	// Text is written to the job's stdin.
	Text string
	// EOF closes the job's stdin after Text, so the job reads end-of-file.
	// False leaves it open for more input.
	EOF bool
}

// Input writes req.Text to the stdin of a job started with Stdin, and with
// req.EOF closes it afterwards. Problems the model can act on come back as
// a result whose Err says which (ErrUnknownID, ErrNoStdin, ErrJobFinished,
// ErrStdinClosed, ErrInputTimeout) and whose Text says so.
func (m *Manager) Input(ctx context.Context, req InputRequest) (*InputResult, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	id, text, eof := req.ID, req.Text, req.EOF
	res := &InputResult{ID: id, EOF: eof, maxChars: m.opts.MaxOutputChars}
	j := m.find(id)
	if j == nil {
		res.Err = unknownID(id)
		return res, nil
	}
	st, _, err := m.refresh(j)
	q := textfmt.PyRepr(id)
	switch {
	case err != nil:
		res.Err = unknownID(id)
	case !st.Stdin:
		res.Err = refusal(ErrNoStdin, "[Error: command ID "+q+" was not started with stdin: pipe; it cannot take input]")
	case st.finished():
		res.Err = refusal(ErrJobFinished, "[Error: command ID "+q+" has finished; it reads no more input]")
	case st.StdinClosed:
		res.Err = refusal(ErrStdinClosed, "[Error: the stdin of command ID "+q+" is already closed]")
	case j.fed.Load():
		res.Err = refusal(ErrStdinClosed, "[Error: the stdin of command ID "+q+" comes from its run request; it takes no other input]")
	}
	if res.Err != nil {
		return res, nil
	}
	j.inputMu.Lock()
	defer j.inputMu.Unlock()
	path := filepath.Join(j.dir, stdinName)
	f, err := openStdinFIFO(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		res.Err = refusal(ErrStdinClosed, "[Error: the stdin of command ID "+q+" is already closed]")
		return res, nil
	case errors.Is(err, errNoReader):
		res.Err = refusal(ErrJobFinished, "[Error: command ID "+q+" has finished; it reads no more input]")
		return res, nil
	case errors.Is(err, errNotFIFO):
		res.Err = refusal(ErrStdinClosed, "[Error: the stdin of command ID "+q+" is not usable]")
		return res, nil
	case err != nil:
		return nil, err
	}
	defer f.Close()
	deadline := time.Now().Add(inputTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = f.SetWriteDeadline(deadline)
	n, err := writeFrames(f, text, eof)
	res.Bytes = n
	if err != nil {
		res.Err = refusal(ErrInputTimeout, "[Error: command ID "+q+" did not read its input in time; "+strconv.Itoa(n)+" of "+
			strconv.Itoa(len(text))+" bytes were written and its stdin may now be unusable]")
		return res, nil
	}
	if eof {
		removeJobFile(j.dir, stdinName) // later Inputs find the stdin closed
	}
	return res, nil
}

// writeFrames writes text as data frames, the last one an end-of-file
// frame when eof is set. It returns the payload bytes written.
func writeFrames(f *os.File, text string, eof bool) (int, error) {
	written := 0
	for first := true; first || len(text) > 0; first = false {
		n := min(len(text), maxFrameBytes)
		kind := byte(frameData)
		if eof && n == len(text) {
			kind = frameEOF
		}
		if n == 0 && !eof {
			break
		}
		frame := make([]byte, frameHeader+n)
		frame[0] = kind
		binary.BigEndian.PutUint32(frame[1:], uint32(n))
		copy(frame[frameHeader:], text[:n])
		if _, err := f.Write(frame); err != nil {
			return written, err
		}
		written += n
		text = text[n:]
	}
	return written, nil
}

// StopRequest asks [Manager.Stop] to stop one job.
type StopRequest struct {
	// ID is the job's ID.
	ID string
	// Keep keeps the job's logs and status file after it stopped (until
	// Options.Retention removes them). False removes them.
	Keep bool
}

// Stop stops a running job (SIGTERM to its process group, the grace
// period, SIGKILL) and reports its final output; a job that died of
// SIGTERM reports exit code 143, one that needed SIGKILL 137. Its logs and
// status are removed unless req.Keep is set (or the job could not be
// confirmed stopped). Stopping a finished job just reports (and removes)
// it. Stop takes at most about KillGrace plus 30 s, whatever ctx says: a
// stop is not abandoned halfway. Concurrent Stops of one job, in this
// Manager or in others on the same workspace and KeyDir (other
// processes), and later Stops of a job stopped and removed, all return
// the same final result until Retention removes it: Stops of a job
// serialise on a flock(2) in KeyDir, and the first records the final
// result there before it removes the job's files. A Stop that cannot take
// that lock stops nothing and returns a result whose Err wraps
// ErrStopLock.
func (m *Manager) Stop(ctx context.Context, req StopRequest) (*JobResult, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	return m.stop(req), nil
}

// stop is Stop without the check that the Manager is open (Close uses
// it).
func (m *Manager) stop(req StopRequest) *JobResult {
	id, keep := req.ID, req.Keep
	if !validID(id) {
		return m.unknown(id)
	}
	// One Stop of a job at a time, in any process; the later ones answer
	// from the final result the first one recorded.
	lock, err := m.lockStop(id)
	if err != nil {
		return &JobResult{ID: id, Err: err, maxChars: m.opts.MaxOutputChars}
	}
	if res := m.finalResult(id); res != nil {
		defer lock.release(false)
		return m.stopFinal(id, res, keep)
	}
	j, st := m.lookup(id)
	if j == nil {
		lock.release(true)
		if res := m.stoppedResult(id); res != nil {
			return res
		}
		return m.unknown(id)
	}
	defer lock.release(false)
	j.stopMu.Lock()
	defer j.stopMu.Unlock()
	if j.stopped != nil {
		res := *j.stopped
		if res.Kept && !keep {
			// Stopped before with Keep; now its files go.
			res.Kept, res.Dir = false, ""
			if m.saveFinal(j.dir, &res) != nil {
				return j.stopped // keep the files: they hold the result
			}
			final := res
			j.stopped = &final
			m.rememberStopped(id, &final)
			m.remove(j)
		}
		return &res
	}
	if !st.finished() {
		m.kill(j.dir, st)
		// The processes are gone or going; give /proc a moment to agree.
		deadline := time.Now().Add(5 * time.Second)
		for {
			var err error
			if st, _, err = m.refresh(j); err != nil {
				return m.unknown(id)
			}
			if st.finished() || time.Now().After(deadline) {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if !st.finished() {
			// Neither the supervisor nor the command could be confirmed
			// stopped: keep the files so the job stays visible.
			keep = true
		}
	}
	res := m.report(j, st, false)
	res.Stopped, res.Kept = true, keep
	if !keep {
		res.Dir = ""
	}
	if st.finished() {
		// Recorded outside the job directory before it goes, for Stops
		// in other Managers; when it cannot be, the files stay instead.
		if err := m.saveFinal(j.dir, res); err != nil && !keep {
			keep, res.Kept, res.Dir = true, true, j.dir
		}
		final := *res
		j.stopped = &final
		m.rememberStopped(id, &final)
	}
	if !keep {
		m.remove(j)
	}
	return res
}

// maxStoppedResults bounds the final results of stopped jobs a Manager
// keeps for Stops that arrive after the job's files were removed.
const maxStoppedResults = 64

// rememberStopped keeps the final result of a stopped job, for Stops of
// the same ID that come after its files are gone.
func (m *Manager) rememberStopped(id string, res *JobResult) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.stopped[id]; !ok {
		if len(m.stoppedOrder) == maxStoppedResults {
			delete(m.stopped, m.stoppedOrder[0])
			m.stoppedOrder = m.stoppedOrder[1:]
		}
		m.stoppedOrder = append(m.stoppedOrder, id)
	}
	m.stopped[id] = res
}

// stoppedResult returns a copy of the final result of job id if this
// Manager stopped it; nil otherwise.
func (m *Manager) stoppedResult(id string) *JobResult {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.stopped[id]
	if r == nil {
		return nil
	}
	res := *r
	return &res
}

// List reports every job in the workspace, oldest first, after removing
// expired ones; with them the jobs this Manager knows whose directory
// vanished.
func (m *Manager) List(ctx context.Context) (*ListResult, error) {
	if err := m.usable(); err != nil {
		return nil, err
	}
	m.gc()
	res := &ListResult{Jobs: []ListEntry{}, maxChars: m.opts.MaxOutputChars}
	now := time.Now()
	names := m.jobNames()
	// Jobs whose directory vanished (the workspace was deleted) are
	// known from memory only.
	for _, j := range m.snapshot() {
		if !slices.Contains(names, j.id) && j.orphaned() {
			names = append(names, j.id)
		}
	}
	for _, name := range names {
		j := m.find(name)
		if j == nil {
			continue
		}
		st, _, err := m.refresh(j)
		if err != nil {
			continue
		}
		info := ListEntry{
			ID: st.ID, Command: st.Command, Status: StatusRunning, ExitCode: st.ExitCode,
			PID: st.PID, StartedAt: st.StartedAt, EndedAt: st.FinishedAt, Age: now.Sub(st.StartedAt),
			Sandbox: st.Sandbox,
		}
		if st.finished() {
			info.Status = StatusFinished
		}
		info.AgeMS = info.Age.Milliseconds()
		res.Jobs = append(res.Jobs, info)
	}
	slices.SortFunc(res.Jobs, func(a, b ListEntry) int { return a.StartedAt.Compare(b.StartedAt) })
	return res, nil
}

// Subscribe registers fn to be called once for each job this Manager sees
// finish (started by it or adopted from disk), including stopped ones. fn
// is called from the Manager's goroutines and must return quickly. The
// returned function unsubscribes.
func (m *Manager) Subscribe(fn func(Event)) (unsubscribe func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.nextSub
	m.nextSub++
	m.subs[id] = fn
	return func() {
		m.mu.Lock()
		delete(m.subs, id)
		m.mu.Unlock()
	}
}

func (m *Manager) notify(j *job, st *status) {
	m.mu.Lock()
	fns := make([]func(Event), 0, len(m.subs))
	for _, fn := range m.subs {
		fns = append(fns, fn)
	}
	m.mu.Unlock()
	if len(fns) == 0 {
		return
	}
	ev := Event{ID: st.ID, Command: st.Command, ExitCode: st.ExitCode, Signal: st.Signal, Stopped: st.Stopped, TimedOut: st.TimedOut}
	if st.FinishedAt != nil {
		ev.Finished = *st.FinishedAt
	}
	ev.Tail = m.tail(j, st)
	for _, fn := range fns {
		fn(ev)
	}
}

// eventTailBytes bounds each log's part of a finished job's Event.Tail.
const eventTailBytes = 1000

// tail returns the end of each of the job's logs, labelled, for its
// finished Event, within the output cap.
func (m *Manager) tail(j *job, st *status) string {
	names := []struct{ label, file string }{{"stdout", stdoutName}, {"stderr", stderrName}}
	if st.Combined {
		names = names[:1]
		names[0] = struct{ label, file string }{"output", outputName}
	}
	var parts []string
	for _, n := range names {
		chunk, err := readLogEnd(filepath.Join(j.dir, n.file), 0, eventTailBytes, true)
		if err != nil || len(chunk.data) == 0 {
			continue
		}
		data := chunk.data
		if chunk.start > 0 {
			if i := bytes.IndexByte(data, '\n'); i >= 0 && i < len(data)-1 {
				data = data[i+1:]
			}
		}
		text := m.clean(data)
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		parts = append(parts, "["+n.label+"]\n"+text)
	}
	// Within the character cap, like every text the model reads.
	return capText(strings.Join(parts, ""), m.opts.MaxOutputChars)
}

func (m *Manager) unknown(id string) *JobResult {
	return &JobResult{ID: id, Err: unknownID(id), maxChars: m.opts.MaxOutputChars}
}

// report reads the job's logs into a result.
func (m *Manager) report(j *job, st *status, newOnly bool) *JobResult {
	res := &JobResult{
		ID: j.id, Command: st.Command, Status: StatusRunning, ExitCode: st.ExitCode, Signal: st.Signal,
		NewOnly: newOnly, TimedOut: st.TimedOut, SupervisorLost: st.SupervisorLost, Dir: j.dir,
		Sandbox: st.Sandbox, QuarantineError: st.QuarantineError, maxChars: m.opts.MaxOutputChars,
	}
	if st.finished() {
		res.Status = StatusFinished
	}
	j.mu.Lock()
	gone := j.gone
	j.mu.Unlock()
	defer func() {
		// After the logs: the notes look at the shell's reports on stderr.
		res.Notes = endNotes(st, res.Stderr+res.Output)
		if gone {
			res.Notes = append(res.Notes, goneNote)
		}
	}()
	type target struct {
		name    string
		text    *string
		omitted *int64
	}
	targets := []target{{stdoutName, &res.Stdout, &res.StdoutOmitted}, {stderrName, &res.Stderr, &res.StderrOmitted}}
	if st.Combined {
		targets = []target{{outputName, &res.Output, &res.OutputOmitted}}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	before := j.seen
	defer func() {
		if j.seen != before {
			saveSeen(j.dir, j.seen)
		}
	}()
	for i, t := range targets {
		from := int64(0)
		if newOnly {
			from = j.seen[i]
		}
		chunk, err := readLogEnd(filepath.Join(j.dir, t.name), from, m.opts.readWindow(), st.finished())
		if err != nil {
			continue
		}
		j.seen[i] = chunk.end
		*t.text = m.clean(chunk.data)
		*t.omitted = chunk.skipped
	}
	return res
}

// endNotes are the notes on how a job ended and what its logs lost: the
// bytes a failed log write lost, then what the Shell's resource limits
// did to it (core.LimitNotes, as for Shell.Run: the file-size limit that
// killed it or a child of it, the CPU time limit that ended it, a failure
// under the memory limit) and, on every result, a MaxProcesses the kernel
// does not enforce. stderr is the end of its stderr (or combined log),
// where the shell reports a child the file-size limit killed.
func endNotes(st *status, stderr string) []string {
	var notes []string
	if lost := st.StdoutLost + st.StderrLost; lost > 0 {
		why := st.LogError
		if why == "" {
			why = "a write error"
		}
		notes = append(notes, strconv.FormatInt(lost, 10)+" bytes of the job's output were lost: its log could not be written ("+why+
			"). The exit code and the rest of the log are kept; free space in the workspace before retrying.")
	}
	limits := core.Settings{
		MaxFileBytes: st.MaxFileBytes, CPUTime: time.Duration(st.CPUTimeMS) * time.Millisecond,
		MemoryLimit: st.MemoryLimit, MaxProcesses: st.MaxProcesses,
	}
	if !st.finished() || st.ExitCode == nil {
		if core.NPROCUnenforced(limits.MaxProcesses) {
			notes = append(notes, core.MaxProcessesUnenforced)
		}
		return notes
	}
	stopped := st.Stopped || st.TimedOut
	if stopped {
		// Its end is the stop's, not a failure the limits explain.
		limits.MaxFileBytes, limits.MemoryLimit = 0, 0
	}
	cpu := time.Duration(-1)
	if st.CPUUsedMS != nil {
		cpu = time.Duration(*st.CPUUsedMS) * time.Millisecond
	}
	return append(notes, core.LimitNotes(limits, core.LimitOutcome{
		ExitCode: *st.ExitCode, Signal: st.Signal, Stderr: stderr, CPU: cpu, Stopped: stopped,
	})...)
}

// clean makes log bytes readable for the model.
func (m *Manager) clean(p []byte) string {
	s := textfmt.ValidUTF8(string(p))
	if !m.opts.KeepANSI {
		s = textfmt.StripANSI(s)
	}
	return s
}
