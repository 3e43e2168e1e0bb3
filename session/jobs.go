//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// job is a command that outlived Options.SoftTimeout: its shell was
// detached from the session and a goroutine (follow) reads its pipes
// until the command's status record arrives or the shell dies.
type job struct {
	n       int
	command string
	started time.Time
	b       *bash // owned by follow; kill signals b.pid while !done
	id      uint64

	mu       sync.Mutex
	stdout   tail
	stderr   tail
	reaping  bool // follow is reaping the shell: signal it no more
	done     bool // exitCode, signal and ended are set
	exitCode int
	signal   string
	told     bool // a result has said that it finished
	timedOut bool // it outlived its Request's timeout and was stopped
	ended    time.Time
	finished chan struct{} // closed when done is set
}

// tail keeps the last limit bytes of a stream and counts them all.
type tail struct {
	data  []byte
	total int64 // bytes written
	seen  int64 // total at the last `output N --new`
	limit int
}

func (t *tail) write(p []byte) {
	t.total += int64(len(p))
	t.data = append(t.data, p...)
	if over := len(t.data) - t.limit; over > 0 && t.limit > 0 {
		for over < len(t.data) && !utf8.RuneStart(t.data[over]) {
			over++ // start on a character
		}
		t.data = append(t.data[:0], t.data[over:]...)
	}
}

// take appends what a capture buffer kept. Bytes it dropped between its
// head and tail are counted, and what came before them is let go: the
// tail holds only the contiguous end of the stream.
func (t *tail) take(b *capture.Buffer) {
	t.write(b.Head())
	if om := b.Omitted(); om > 0 {
		t.total += om
		t.data = t.data[:0]
		t.write(b.Tail())
	}
}

// since returns what the tail holds of the bytes after offset from, and
// how many of them it no longer holds.
func (t *tail) since(from int64) (string, int64) {
	start := t.total - int64(len(t.data))
	if from <= start {
		return string(t.data), start - from
	}
	return string(t.data[from-start:]), 0
}

// promote turns the shell running the current command into job N, which
// is stopped when timeout has passed since started, and starts a fresh
// shell with the session's directory and exported variables. out holds
// what the command printed so far.
func (s *Session) promote(ctx context.Context, command string, id uint64, started time.Time, timeout time.Duration, out *sink) (*job, error) {
	keep := max(core.KeepBytes(s.opts.MaxOutputChars, s.opts.MaxOutputBytes), 4096) * 2
	s.jobSeq++
	j := &job{n: s.jobSeq, command: command, started: started, b: s.b, id: id, finished: make(chan struct{})}
	j.stdout.limit, j.stderr.limit = keep, keep
	j.stdout.take(out.stdout)
	j.stderr.take(out.stderr)
	// The call's result shows this output: `output N --new` starts after it.
	j.stdout.seen, j.stderr.seen = j.stdout.total, j.stderr.total
	if s.jobs == nil {
		s.jobs = map[int]*job{}
	}
	s.jobs[j.n] = j
	s.b = nil
	go j.follow(timeout, s.opts.InterruptGrace)
	if err := s.start(context.WithoutCancel(ctx), restoreState); err != nil {
		return j, err
	}
	return j, nil
}

// follow reads the detached shell's output until the job's record
// arrives or the shell dies, then stops the shell and its group.
func (j *job) follow(timeout, grace time.Duration) {
	match := func(id uint64) bool { return id == j.id }
	rc, died := 0, false
	// Past its timeout the job is stopped as kill N stops it: SIGINT,
	// SIGTERM, SIGKILL, grace apart, resynchronising in between.
	stage, next := 0, j.started.Add(timeout)
	for {
		if now := time.Now(); !now.Before(next) && stage < 3 {
			if stage == 0 {
				j.mu.Lock()
				j.timedOut = true
				j.mu.Unlock()
			}
			j.signalGroup([]syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL}[stage])
			stage++
			next = now.Add(grace)
		}
		if stage == 1 {
			j.signalGroup(syscall.SIGINT) // again: see killJob
		}
		if stage > 0 {
			j.sync()
		}
		tmp := newSink(64<<10, -1)
		rec, why := j.b.await(nil, j.id, match, earlier(next, time.Now().Add(200*time.Millisecond)), tmp)
		j.mu.Lock()
		j.stdout.take(tmp.stdout)
		j.stderr.take(tmp.stderr)
		j.mu.Unlock()
		if why == gotRecord {
			rc = rec.rc
			break
		}
		if why == shellDied {
			died = true
			break
		}
	}
	j.mu.Lock()
	j.reaping = true // from here on nobody signals j.b.pid: it is reaped below
	j.mu.Unlock()
	state := j.b.kill()
	j.mu.Lock()
	j.done = true
	j.exitCode = rc
	if died {
		j.exitCode, j.signal = core.ExitStatus(state)
	}
	if j.timedOut {
		j.exitCode, j.signal = 124, ""
	}
	j.ended = time.Now()
	j.mu.Unlock()
	close(j.finished)
}

// signalGroup sends sig to the job's shell group unless it has ended.
func (j *job) signalGroup(sig syscall.Signal) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.reaping {
		j.b.signal(sig)
	}
}

// waitFor waits up to d (or ctx) for the job to end; it reports whether it did.
func (j *job) waitFor(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.finished:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// promotedNote is the note of the call whose command became job n.
func promotedNote(n int, after time.Duration) string {
	return fmt.Sprintf("Command still running after %v: it is now background job %d; the session continues in a new shell "+
		"with your directory and exported variables. Use `output %d`, `wait %d [DURATION]`, `kill %d`, `jobs`.", textfmt.FormatSeconds(after), n, n, n, n)
}

// control runs a job-control command typed as the whole command (`jobs`,
// `output N [--new]`, `wait N [DURATION]`, `kill N`) when the job it
// names exists; ok is false for anything else, which goes to bash.
func (s *Session) control(ctx context.Context, req Request) (res *Result, ok bool, err error) {
	command := req.Command
	f := strings.Fields(command)
	if len(f) == 0 || len(f) > 3 {
		return nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.jobs) == 0 {
		return nil, false, nil
	}
	if s.closed {
		return nil, true, ErrClosed
	}
	if f[0] == "jobs" && len(f) == 1 {
		res = s.newResult(command)
		res.Stdout = s.listJobs()
		res.Cwd = s.cwd
		return res, true, nil
	}
	if len(f) < 2 {
		return nil, false, nil
	}
	n, err := strconv.Atoi(f[1])
	j := s.jobs[n]
	if err != nil || j == nil {
		return nil, false, nil
	}
	res = s.newResult(command)
	defer func(start time.Time) {
		if res != nil {
			res.Duration = time.Since(start)
		}
	}(time.Now())
	switch {
	case f[0] == "output" && len(f) == 2:
		s.report(res, j, false)
	case f[0] == "output" && f[2] == "--new":
		s.report(res, j, true)
	case f[0] == "wait":
		want := req.Timeout // wait N without DURATION waits as long as the request's timeout
		if len(f) == 3 {
			if want, err = parseWait(f[2]); err != nil {
				res.Err = &shellcap.RequestError{Kind: shellcap.ErrTimeoutRange, Msg: fmt.Sprintf(
					"wait %d %s: the duration must be a Go duration (90s, 10m) or a number of seconds.", n, cut(f[2]))}
				return res, true, nil
			}
		}
		d, terr := s.core.Timeout(want, s.opts.DefaultTimeout, s.opts.MaxTimeout)
		if terr != nil {
			res.Err = terr
			return res, true, nil
		}
		res.Timeout = d
		if !j.waitFor(ctx, d) {
			if ctx.Err() != nil {
				res.Canceled = true
				res.Notes = append(res.Notes, fmt.Sprintf("The wait was interrupted; job %d is still running.", n))
			} else {
				res.Notes = append(res.Notes, fmt.Sprintf("Job %d is still running after waiting %s.", n, textfmt.FormatSeconds(d)))
			}
		}
		s.report(res, j, true)
	case f[0] == "kill" && len(f) == 2:
		s.killJob(ctx, j)
		s.report(res, j, true)
	default:
		return nil, false, nil
	}
	return res, true, nil
}

// parseWait reads wait's DURATION: a Go duration or a number of seconds.
func parseWait(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f != f || f > 1e9 || f < -1e9 {
		return 0, fmt.Errorf("bad duration %q", v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// killJob stops a job: SIGINT, then SIGTERM, then SIGKILL to its shell's
// group, InterruptGrace apart. An interactive bash that SIGINT brought
// back to its prompt never runs the rest of the job's step line, so a
// synchronisation step with the job's id reports its status instead
// (repeated: an interrupted shell may drop buffered input). SIGINT is
// repeated too: bash goes on with a loop when the signal reaches it while
// no child it waits for dies of it.
func (s *Session) killJob(ctx context.Context, j *job) {
	ctx = context.WithoutCancel(ctx)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		end := time.Now().Add(s.opts.InterruptGrace)
		for first := true; ; first = false {
			if first || sig == syscall.SIGINT {
				j.signalGroup(sig)
			}
			j.sync()
			if j.waitFor(ctx, min(resyncEvery, time.Until(end))) {
				return
			}
			if !time.Now().Before(end) {
				break
			}
		}
	}
	<-j.finished
}

// sync asks the job's shell, once it is at its prompt, for a record with
// the job's id and the status of the last command.
func (j *job) sync() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.reaping {
		_ = j.b.send(syncLine(j.id))
	}
}

// report puts a job's state and output into res; with onlyNew, only the
// output since the last report that took it.
func (s *Session) report(res *Result, j *job, onlyNew bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	from := [2]int64{}
	if onlyNew {
		from = [2]int64{j.stdout.seen, j.stderr.seen}
	}
	var lost [2]int64
	res.Stdout, lost[0] = j.stdout.since(from[0])
	res.Stderr, lost[1] = j.stderr.since(from[1])
	if !s.opts.KeepANSI {
		res.Stdout, res.Stderr = textfmt.StripANSI(res.Stdout), textfmt.StripANSI(res.Stderr)
	}
	j.stdout.seen, j.stderr.seen = j.stdout.total, j.stderr.total
	res.StdoutBytes, res.StderrBytes = j.stdout.total-from[0], j.stderr.total-from[1]
	res.StdoutOmitted, res.StderrOmitted = lost[0], lost[1]
	if lost[0]+lost[1] > 0 {
		res.Truncated = true
		res.Notes = append(res.Notes, fmt.Sprintf("The job printed %d more bytes before this output; they are no longer kept.", lost[0]+lost[1]))
	}
	res.Cwd = s.cwd
	res.Notes = append(res.Notes, j.describe())
	if j.done {
		res.ExitCode, res.Signal = j.exitCode, j.signal
	}
}

// describe is one line on the job's state; j.mu is held.
func (j *job) describe() string {
	if j.done {
		j.told = true
		how := ""
		if j.timedOut {
			how = ", stopped at its timeout"
		}
		return fmt.Sprintf("Job %d finished (exit code %d%s) after %v: %s", j.n, j.exitCode, how, j.ended.Sub(j.started).Round(time.Millisecond), cut(j.command))
	}
	return fmt.Sprintf("Job %d running (%v): %s", j.n, time.Since(j.started).Round(time.Millisecond), cut(j.command))
}

// cut shortens a command echoed in a note.
func cut(command string) string {
	const most = 120
	if utf8.RuneCountInString(command) <= most {
		return command
	}
	r := []rune(command)
	return string(r[:most]) + "…"
}

// announce adds a note for each job that finished since a result last
// said so, so that the model learns of it on its next call.
func (s *Session) announce(res *Result) {
	ns := make([]int, 0, len(s.jobs))
	for n := range s.jobs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	for _, n := range ns {
		j := s.jobs[n]
		j.mu.Lock()
		if j.done && !j.told {
			d := j.describe() // "Job N finished ..."
			res.Notes = append(res.Notes, "Background j"+d[1:]+fmt.Sprintf(". Use `output %d` for its output.", n))
		}
		j.mu.Unlock()
	}
}

// listJobs is the output of `jobs`.
func (s *Session) listJobs() string {
	ns := make([]int, 0, len(s.jobs))
	for n := range s.jobs {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var b strings.Builder
	for _, n := range ns {
		j := s.jobs[n]
		j.mu.Lock()
		b.WriteString(j.describe() + "\n")
		j.mu.Unlock()
	}
	return b.String()
}

// closeJobs kills every detached shell and waits for them to be reaped.
func (s *Session) closeJobs() {
	for _, j := range s.jobs {
		j.signalGroup(syscall.SIGKILL)
	}
	for _, j := range s.jobs {
		<-j.finished
	}
}
