//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// ErrClosed reports a call on a closed Session.
var ErrClosed = errors.New("session: closed")

// resyncEvery is how often a synchronisation step is repeated while an
// interrupted shell has not answered (it may have dropped buffered input).
const resyncEvery = 250 * time.Millisecond

// Session is a long-lived bash for one agent: variables, functions, cd and
// export carry from one Run to the next. It is safe for concurrent use;
// calls run one at a time.
type Session struct {
	core *core.Shell // the Shell's seam, taken once
	opts Options
	root string
	ids  *mrand.ChaCha8 // the random half of step ids (nextID)

	dir        string   // private directory for the exit trap's records
	releaseDir func()   // ends the Shell's watch over dir (DieWithProcess)
	cmdFile    *os.File // the next command's text, read by the shell (newCommandFile)

	mu      sync.Mutex
	b       *bash // nil after a failed restart and after Close
	closed  bool
	seq     uint64       // sequence number of the last step id issued
	issued  []uint64     // the step ids issued lately, newest last
	cwd     string       // the shell's directory after the last call
	exports string       // `export -p` after the last call
	state   string       // what the EXIT trap of the shell that ended left (restorableState), for the next start
	flags   string       // $- of the shell that ended, from its EXIT trap
	toRoot  bool         // the next command starts in the workspace root (its directory vanished)
	jobSeq  int          // the number of the last job promoted (Options.SoftTimeout)
	jobs    map[int]*job // promoted commands by number; nil until the first
}

// New starts a session in sh's workspace. ctx bounds the start only. A
// zero field of opts means the Shell's value; options the Shell's limits
// do not allow are refused with a *shellcap.OptionError.
func New(ctx context.Context, sh *shellcap.Shell, opts Options) (*Session, error) {
	if sh == nil {
		return nil, errors.New("session: nil Shell")
	}
	c := core.Of(sh)
	opts, err := opts.resolve(c.Settings)
	if err != nil {
		return nil, err
	}
	var seed [32]byte
	if _, err := rand.Read(seed[:]); err != nil {
		return nil, err
	}
	sweepOnce.Do(func() { removeStaleDirs(os.TempDir()) })
	// The PID in the name tells whose directory it is.
	dir, err := os.MkdirTemp("", dirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	f, err := newCommandFile(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	s := &Session{core: c, opts: opts, root: c.Settings.Workspace, ids: mrand.NewChaCha8(seed), dir: dir, cmdFile: f}
	if s.releaseDir, err = c.WatchDir(dir); err != nil {
		_ = f.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := s.start(ctx, freshShell); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// Run runs one command in the session's shell and reports what happened.
// Problems the model can fix (a NUL byte, a timeout out of range, a
// workspace that can no longer be entered) come back as a Result with Err
// set. The error is for the host: a closed Session, a shell that cannot be
// started, a context that ended before the command was sent.
//
// A command that outlives its timeout, prints more than the output cap or
// whose ctx ends is interrupted: SIGINT to the shell's process group, which
// stops the command's processes and returns the shell to its prompt with
// its state; processes the command started that do not stop within
// Options.InterruptGrace are killed; a shell that still does not answer is
// restarted with its directory and exported variables.
func (s *Session) Run(ctx context.Context, req Request) (*Result, error) {
	if s.opts.SoftTimeout > 0 {
		// Job control typed whole is not a shell command: no policy.
		if res, ok, err := s.control(ctx, req); ok {
			return res, err
		}
	}
	if err := s.core.Admit(ctx, req.Command); err != nil {
		res := s.newResult(req.Command)
		res.Err = err
		return res, nil
	}
	return s.run(ctx, req)
}

// run runs a command that Authorize accepted.
func (s *Session) run(ctx context.Context, req Request) (*Result, error) {
	if strings.IndexByte(req.Command, 0) >= 0 {
		return nil, errors.New("session: NUL byte in command")
	}
	res := s.newResult(req.Command)
	timeout, err := s.core.Timeout(req.Timeout, s.opts.DefaultTimeout, s.opts.MaxTimeout)
	if err != nil {
		res.Err = err
		return res, nil
	}
	res.Timeout = timeout
	if len(req.Command)+1 > maxCommandFile {
		res.Err = &shellcap.RequestError{Kind: shellcap.ErrCommandTooLong, Msg: fmt.Sprintf(
			"The command is %d bytes; a session takes at most %d. Write long scripts to a file and run the file instead.",
			len(req.Command), maxCommandFile-1)}
		return res, nil
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.b == nil {
		if err := s.start(ctx, restoreState); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()
	if len(s.jobs) > 0 {
		defer s.announce(res)
	}
	res.Cwd = s.cwd
	if !inline(req.Command) {
		if err := s.writeCommand(req.Command); err != nil {
			return nil, err
		}
	}
	out := newBudgetSink(s.core.Settings, s.opts.MaxOutputChars, s.opts.MaxOutputBytes)
	id := s.nextID()
	out.firstID = id
	root := ""
	if s.opts.StartInRoot || s.toRoot {
		root = s.root
	} else if gone := s.cwdGone(); gone != "" {
		// Refuse rather than run in a deleted directory; the next call
		// starts in the workspace root.
		msg := "The workspace root " + s.root + " " + gone + ", so the command was not run."
		if s.cwd != s.root {
			s.toRoot = true
			msg = "The session's directory " + s.cwd + " " + gone +
				", so the command was not run. The next command runs in the workspace root " + s.root + "; retry it there."
		}
		res.Err = &shellcap.RequestError{Kind: shellcap.ErrWorkdirGone, Msg: msg}
		return res, nil
	}
	s.toRoot = false
	if err := s.core.BeforeStep(); err != nil {
		return nil, err
	}
	defer func() {
		moved, notes := s.core.AfterStep()
		if len(moved) > 0 && res.Sandbox != nil {
			e := *res.Sandbox
			e.Quarantined = moved
			res.Sandbox = &e
		}
		res.Notes = append(res.Notes, notes...)
	}()
	why := shellDied
	var rec record
	check := mayRepair(req.Command)
	deadline := start.Add(timeout)
	soft := s.opts.SoftTimeout > 0 && s.opts.SoftTimeout < timeout
	if soft {
		deadline = start.Add(s.opts.SoftTimeout)
	}
	if err := s.b.send(stepLine(id, root, req.Command, mayChangeExports(req.Command), check)); err == nil {
		rec, why = s.b.await(ctx, id, s.isIssued, deadline, out)
	}
	if soft && why == deadlineHit {
		j, err := s.promote(ctx, req.Command, id, start, timeout, out)
		res.Job = j.n
		res.Notes = append(res.Notes, promotedNote(j.n, s.opts.SoftTimeout))
		res.Cwd = s.cwd
		if s.b != nil {
			res.Sandbox = s.b.sandbox
		}
		s.finish(res, out, false)
		return res, err
	}
	died := false
	switch why {
	case gotRecord:
		s.remember(rec)
		res.ExitCode = rec.rc
		if rec.kind == kindRun && rec.rc != 0 {
			if n := core.FileLimitNote(s.core.Settings.MaxFileBytes, rec.rc == exitXFSZ); n != "" {
				res.Notes = append(res.Notes, n)
			}
		}
		res.Notes = append(res.Notes, repairNotes(rec)...)
		if note := redirectNote(req.Command); note != "" {
			res.Notes = append(res.Notes, note)
		}
		if rec.kind == kindAnchor {
			res.Err = &shellcap.RequestError{Kind: shellcap.ErrWorkdirGone, Msg: "The workspace root " + s.root +
				" could not be entered, so the command was not run."}
		}
	case shellDied:
		died = true
		if err := s.replaceDeadShell(ctx, res); err != nil {
			s.finish(res, out, died)
			return res, err
		}
	default:
		switch why {
		case deadlineHit:
			res.TimedOut = true
		case ctxDone:
			res.Canceled = true
			res.Notes = append(res.Notes, core.CanceledNote("it was interrupted"))
		case capHit:
			res.OutputLimitExceeded = true
			res.Notes = append(res.Notes, core.OutputLimitNote(s.opts.MaxOutputBytes, "the command was interrupted"))
		}
		var err error
		died, err = s.interrupt(ctx, res, out, start)
		if err != nil {
			s.finish(res, out, died)
			return res, err
		}
	}
	res.Cwd = s.cwd
	if s.b != nil {
		res.Sandbox = s.b.sandbox
	}
	s.finish(res, out, died)
	return res, nil
}

// interrupt stops the running command and finds the prompt again. It
// reports whether the shell had to be replaced.
func (s *Session) interrupt(ctx context.Context, res *Result, out *sink, callStart time.Time) (bool, error) {
	s.b.signal(syscall.SIGINT)
	out.interrupted = true
	escalated := ""
	for phase := 0; phase < 3; phase++ {
		minID := s.nextID()
		deadline := time.Now().Add(s.opts.InterruptGrace)
		id := minID
		for {
			_ = s.b.send(syncLine(id)) // a shell that is gone shows in await
			rec, why := s.b.await(nil, minID, s.isIssued, earlier(deadline, time.Now().Add(resyncEvery)), out)
			if why == gotRecord {
				s.remember(rec)
				if !res.TimedOut {
					res.ExitCode = rec.rc
				} else {
					res.ExitCode = 124
				}
				if escalated != "" {
					res.Notes = append(res.Notes, "The command's processes did not stop on SIGINT, so they were sent "+escalated+
						" after "+s.opts.InterruptGrace.String()+".")
				}
				res.Notes = append(res.Notes, "The shell session was kept: variables, functions and the working directory are intact.")
				return false, nil
			}
			if why == shellDied {
				return true, s.replaceDeadShell(ctx, res)
			}
			if why == capHit {
				continue
			}
			if !time.Now().Before(deadline) {
				break
			}
			id = s.nextID()
		}
		if phase < 2 {
			// The command's processes ignored SIGINT: stop the ones it
			// started, leaving older background jobs alone, with SIGTERM,
			// then SIGKILL.
			sig, name := syscall.SIGTERM, "SIGTERM"
			if phase == 1 {
				sig, name = syscall.SIGKILL, "SIGTERM, then SIGKILL"
			}
			for _, pid := range s.b.membersSince(callStart) {
				_ = unix.Kill(pid, sig)
				escalated = name
			}
		}
	}
	// The shell itself does not answer (a builtin loop with SIGINT
	// trapped, say): replace it.
	s.b.kill()
	s.b = nil
	res.ExitCode = 124
	if !res.TimedOut {
		res.ExitCode = 130
	}
	res.Restarted = true
	if err := s.start(context.WithoutCancel(ctx), restoreState); err != nil {
		return true, err
	}
	res.Notes = append(res.Notes, s.restartNote("The shell did not respond to the interrupt, so it was stopped and a new one was started"))
	return true, nil
}

// replaceDeadShell reaps a shell that ended during a command and starts a
// new one with the old directory and exported variables.
func (s *Session) replaceDeadShell(ctx context.Context, res *Result) error {
	if !s.b.waitExit(s.opts.InterruptGrace) {
		// It closed the status pipe without exiting: it cannot be used.
		s.b.signal(syscall.SIGKILL)
	}
	state := s.b.kill()
	s.b = nil
	s.rememberExit()
	code, how := shellEnd(state)
	if code != 0 && strings.Contains(s.flags, "e") {
		how += " under set -e"
	}
	if code == exitBroken {
		how = "could not enable the builtins the session needs again (enable itself was disabled or replaced)"
	}
	res.ExitCode = code
	res.Restarted = true
	restored := s.state != ""
	if err := s.start(context.WithoutCancel(ctx), restoreState); err != nil {
		return err
	}
	if restored {
		res.Notes = append(res.Notes, "The shell "+how+", so a new one was started in "+s.cwd+
			" with its variables, functions and aliases restored. Its shell options, traps and background jobs are gone."+
			" Do not use exit or exec to end a command.")
		return nil
	}
	res.Notes = append(res.Notes, s.restartNote("The shell "+how+", so a new one was started"))
	return nil
}

func (s *Session) restartNote(what string) string {
	return what + " in " + s.cwd + " with the exported variables restored. Shell functions, aliases, " +
		"unexported variables and background jobs of the old shell are gone. Do not use exit or exec to end a command."
}

// shellEnd returns the exit code of a shell that ended and how it ended,
// for the restart note.
func shellEnd(state *os.ProcessState) (int, string) {
	code, signal := core.ExitStatus(state)
	switch {
	case state == nil:
		return code, "ended"
	case signal != "":
		return code, "was killed by " + signal
	}
	return code, fmt.Sprintf("exited (exit code %d)", code)
}

// newResult is the result of command before it runs, rendered within the
// session's text limit. It reads nothing Session.mu guards: a refusal is
// made without the lock.
func (s *Session) newResult(command string) *Result {
	return &Result{Result: shellcap.Result{
		Command:     command,
		TextLimit:   s.opts.MaxOutputChars,
		HeadAndTail: s.opts.HeadAndTail,
	}}
}

// finish copies the captured output into the result.
func (s *Session) finish(res *Result, out *sink, died bool) {
	outKept, outOmitted := out.kept(shellcap.Stdout)
	errKept, errOmitted := out.kept(shellcap.Stderr)
	stdout, stderr := string(outKept), string(errKept)
	stderr = cutTrace(stderr, out.firstID)
	if out.interrupted {
		stderr = cutTTYErrors(stderr)
	}
	if out.interrupted && (stderr == "\n" || strings.HasSuffix(stderr, "\n\n")) {
		// An interactive bash marks SIGINT with a newline.
		stderr = stderr[:len(stderr)-1]
	}
	if died {
		// An interactive bash says "exit" on its way out.
		stderr = strings.TrimSuffix(stderr, "exit\n")
	}
	if !s.opts.KeepANSI {
		stdout, stderr = textfmt.StripANSI(stdout), textfmt.StripANSI(stderr)
	}
	res.Stdout, res.Stderr = stdout, stderr
	res.StdoutBytes = out.stdout.Total() + out.dropped[shellcap.Stdout]
	res.StderrBytes = out.stderr.Total() + out.dropped[shellcap.Stderr]
	res.StdoutOmitted = outOmitted + out.dropped[shellcap.Stdout]
	res.StderrOmitted = errOmitted + out.dropped[shellcap.Stderr]
	if res.StdoutOmitted > 0 || res.StderrOmitted > 0 {
		res.Truncated = true
	}
	if res.Err == nil && res.TextLimit > 0 {
		full := res.Result
		full.TextLimit = 0
		if utf8.RuneCountInString(full.Text()) > res.TextLimit {
			res.Truncated = true
		}
	}
}

// startMode says what a new shell takes from the one before it.
type startMode int

const (
	freshShell   startMode = iota // the workspace root, no exported variables
	restoreState                  // the previous shell's directory and exported variables
)

// start starts a shell and prepares it as mode says.
func (s *Session) start(ctx context.Context, mode startMode) error {
	b, err := startBash(s.core, s.opts.Env, s.cmdFile)
	if err != nil {
		return err
	}
	exports, cwd := "", ""
	if mode == restoreState {
		exports, cwd = restorableExports(s.exports), s.cwd
	}
	if s.opts.StartInRoot {
		cwd = ""
	}
	s.b = b
	state := ""
	if mode == restoreState {
		state = s.state
	}
	s.state, s.flags = "", ""
	files := s.exitFiles()
	for _, f := range []string{files.how, files.exports, files.cwd, files.vars, files.funcs, files.aliases} {
		_ = os.Remove(f)
	}
	script := setupScript(exports, cwd, s.root, files, state)
	if len(script)+1 > maxCommandFile {
		// Too much state for the command file: restore the exports only.
		script = setupScript(exports, cwd, s.root, files, "")
	}
	if err := s.writeCommand(script); err != nil {
		s.b.kill()
		s.b = nil
		return err
	}
	id := s.nextID()
	out := newSink(4096, 1<<20)
	why := shellDied
	var rec record
	if err := b.send(setupLine(id)); err == nil {
		rec, why = b.await(ctx, id, s.isIssued, time.Now().Add(DefaultStartTimeout), out)
	}
	if why != gotRecord {
		b.kill()
		s.b = nil
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("session: the shell did not start: %s", strings.TrimSpace(string(out.stderr.Bytes())))
	}
	s.remember(rec)
	return nil
}

// remember keeps the state a record reports, for the next restart.
func (s *Session) remember(rec record) {
	s.cwd = rec.pwd
	if rec.snapshot {
		s.exports = rec.exports
	}
}

// rememberExit takes the state the EXIT trap of a shell that has just
// exited left behind: newer than the last record's. A shell killed by a
// signal (kill -9 $$) leaves nothing, and the last record's state stays.
func (s *Session) rememberExit() {
	f := s.exitFiles()
	read := func(name string) (string, bool) {
		data, err := os.ReadFile(name)
		return string(data), err == nil
	}
	if data, ok := read(f.exports); ok {
		s.exports = data
	}
	if data, ok := read(f.cwd); ok && data != "" {
		s.cwd = data
	}
	if how, ok := read(f.how); ok {
		_, s.flags, _ = strings.Cut(how, " ")
	}
	vars, ok1 := read(f.vars)
	funcs, ok2 := read(f.funcs)
	aliases, ok3 := read(f.aliases)
	if ok1 && ok2 && ok3 {
		s.state = restorableState(vars, funcs, aliases)
	}
}

func (s *Session) exitFiles() exitFiles {
	prefix := "exit-"
	if s.jobSeq > 0 {
		// A job's shell keeps its EXIT trap and the names it writes: the
		// current shell's records must not be those.
		prefix += strconv.Itoa(s.jobSeq) + "-"
	}
	at := func(name string) string { return filepath.Join(s.dir, prefix+name) }
	return exitFiles{how: at("how"), exports: at("exports"), cwd: at("cwd"), vars: at("vars"), funcs: at("funcs"), aliases: at("aliases")}
}

func (s *Session) nextID() uint64 {
	s.seq++
	id := s.seq<<32 | uint64(uint32(s.ids.Uint64()))
	s.issued = append(s.issued, id)
	if len(s.issued) > maxIssued {
		s.issued = s.issued[1:]
	}
	return id
}

// cwdGone says how the shell's directory, when it is in the workspace,
// vanished: "no longer exists" or "is no longer a directory"; empty when
// it is there (or outside the workspace, where a sandbox may see another
// file system than ours).
func (s *Session) cwdGone() string {
	if s.cwd == "" || (s.cwd != s.root && !strings.HasPrefix(s.cwd, s.root+"/")) {
		return ""
	}
	fi, err := os.Stat(s.cwd)
	switch {
	case err == nil && !fi.IsDir(), errors.Is(err, syscall.ENOTDIR):
		return "is no longer a directory"
	case errors.Is(err, os.ErrNotExist):
		return "no longer exists"
	}
	return ""
}

// exitXFSZ is the status bash reports for a command SIGXFSZ killed (the
// signal is 25 on Linux, darwin and the BSDs): the file-size limit ended it.
const exitXFSZ = 128 + 25

// maxIssued is how many step ids a Session remembers; a call issues a few
// at most (its step, the resynchronisation steps after an interrupt).
const maxIssued = 64

// isIssued reports whether id is one this Session issued lately. Step ids
// carry the sequence number in their high 32 bits, so that they order,
// and 32 random bits below: a command that writes a record into the
// status pipe through a descriptor bash keeps open while it runs (bash
// saves the status descriptor to a spare one during the command's
// redirections) cannot name a step the Session is waiting for. The random
// bits come from a ChaCha8 stream keyed from crypto/rand at New: as
// unpredictable to a command as crypto/rand itself, without a system call
// per step.
func (s *Session) isIssued(id uint64) bool {
	return slices.Contains(s.issued, id)
}

// writeCommand writes text and a NUL at the start of the command file; the
// shell's read stops at the NUL (successfully, so $? is 0 when the command
// starts).
func (s *Session) writeCommand(text string) error {
	if len(text)+1 > maxCommandFile {
		return fmt.Errorf("session: the command is %d bytes; a session takes at most %d", len(text), maxCommandFile-1)
	}
	// Bytes after the NUL, left from a longer command, are never read.
	buf := make([]byte, len(text)+1)
	copy(buf, text)
	if _, err := s.cmdFile.WriteAt(buf, 0); err != nil {
		return err
	}
	// The shell's descriptor shares this offset: rewind it for the read.
	_, err := s.cmdFile.Seek(0, io.SeekStart)
	return err
}

// Restart replaces the shell with a fresh one in the workspace root, as
// Anthropic's bash tool does for restart: true. Variables, functions,
// the working directory and background jobs of the old shell are gone;
// jobs promoted after Options.SoftTimeout are kept, with their numbers.
func (s *Session) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.b != nil {
		s.b.kill()
		s.b = nil
	}
	s.cwd, s.exports = "", ""
	return s.start(ctx, freshShell)
}

// Close stops the shell and every process in its group (background jobs
// included), kills the shells of jobs promoted after Options.SoftTimeout
// with their groups, and removes the session's files. It waits for a Run in
// progress; cancel its context first to stop it sooner. Close is safe to
// call more than once.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.closeJobs()
	s.cleanup()
	return nil
}

func (s *Session) cleanup() {
	if s.b != nil {
		s.b.kill()
		s.b = nil
	}
	_ = s.cmdFile.Close()
	_ = os.RemoveAll(s.dir)
	s.releaseDir()
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
