package jobs

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/reexec"
)

// supervisorEntry is the re-exec entry point that makes a binary linking
// this package run as a job supervisor instead of its own main.
const supervisorEntry = "job-supervisor"

// The supervisor's inherited descriptors: the spec arrives on one pipe,
// the reply leaves on another. Secrets in the environment therefore never
// appear in argv. The descriptors a Confiner gave the command (a
// sandbox's policy pipe) follow, from firstExtraFD, and reach the command
// as 3, 4, ... in the same order, where the Confiner put them.
const (
	specFD       = 3
	replyFD      = 4
	firstExtraFD = 5
)

// Drain bounds after the command exited: processes that escaped its
// process group may hold the pipes open.
const (
	drainAfterExit = 1 * time.Second
	drainAfterKill = 500 * time.Millisecond
)

// Stdin frames: a kind byte, a big-endian uint32 length, the payload.
const (
	frameData     = 'd'
	frameEOF      = 'e'
	frameHeader   = 5
	maxFrameBytes = 64 << 10
)

func init() { reexec.Register(supervisorEntry, superviseMain) }

// spec is what the host tells the supervisor, over the spec pipe.
// It is all data: the command arrives prepared and already confined (see
// confine.go), and the supervisor starts exactly that.
type spec struct {
	ID  string `json:"id"`
	Dir string `json:"dir"` // the job directory
	// Key signs the status files (see recordKey).
	Key recordKey `json:"key"`
	// KeyDir is the key's directory, outside the workspace: where the
	// final status goes when the job directory is gone.
	KeyDir  string `json:"key_dir,omitempty"`
	Command string `json:"command"`
	// The process to start, as the Confiner left it (or as the Shell
	// prepared it, unconfined).
	Path    string    `json:"path"`
	Args    []string  `json:"args"`
	Workdir string    `json:"workdir"`
	Env     []string  `json:"env"`
	Attr    *procAttr `json:"attr,omitempty"` // nil: a new session
	// ExtraFiles counts the descriptors inherited from firstExtraFD on,
	// which the command gets as 3, 4, ...
	ExtraFiles int `json:"extra_files,omitempty"`
	// Sandbox is what the Confiner enforces; nil unconfined.
	Sandbox *shellcap.Enforcement `json:"sandbox,omitempty"`
	// Companion, when set, is the process to run beside the job
	// (JobConfiner); its descriptors follow the command's.
	Companion   *companionSpec `json:"companion,omitempty"`
	Combined    bool           `json:"combined"`
	Stdin       bool           `json:"stdin"`
	MaxLogBytes int64          `json:"max_log_bytes"`
	// MaxFileBytes is the Shell's file-size limit on the command (0:
	// none), recorded in the status for the notes on how it ended.
	MaxFileBytes int64 `json:"max_file_bytes,omitempty"`
	// CPUTimeMS, MemoryLimit and MaxProcesses are the Shell's other
	// limits on the command, recorded likewise.
	CPUTimeMS    int64 `json:"cpu_time_ms,omitempty"`
	MemoryLimit  int64 `json:"memory_limit,omitempty"`
	MaxProcesses int   `json:"max_processes,omitempty"`
	GraceMS      int64 `json:"grace_ms"`
	TimeoutMS    int64 `json:"timeout_ms"`
	// Named marks a job whose ID the caller chose (StartRequest.ID): a
	// host that dies before it reads the reply does not lose it, since a
	// retried start finds it by that ID.
	Named bool `json:"named,omitempty"`
	// StartBy (Unix nanoseconds; 0: no bound) is when the host stops
	// waiting for the reply: the supervisor does not start the command
	// after it, so a launch whose host died is over by then (see
	// settleLaunch).
	StartBy int64 `json:"start_by,omitempty"`
}

// reply is the supervisor's answer once the command started (or failed to).
type reply struct {
	Error  string  `json:"error,omitempty"`
	Status *status `json:"status,omitempty"`
}

// superviseMain runs in the re-executed binary. Its exit code only matters
// to whoever reaps it.
func superviseMain() int {
	// Stop requests arrive as SIGTERM; install the handler before anything
	// can send one.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// Inherited without close-on-exec: keep them from the command, or the
	// host would wait for the reply pipe to close until the command ends.
	syscall.CloseOnExec(specFD)
	syscall.CloseOnExec(replyFD)
	for fd := firstExtraFD; fd < firstExtraFD+maxExtraFiles; fd++ {
		closeOnExec(fd) // passed on explicitly, if the spec says so
	}
	specFile := os.NewFile(specFD, "spec")
	replyFile := os.NewFile(replyFD, "reply")
	if specFile == nil || replyFile == nil {
		return 2
	}
	var sp spec
	err := json.NewDecoder(io.LimitReader(specFile, 64<<20)).Decode(&sp)
	specFile.Close()
	if err == nil && (!validID(sp.ID) || sp.Dir == "" || len(sp.Key) != keyLen || sp.ExtraFiles < 0 ||
		(sp.Companion != nil && sp.Companion.ExtraFiles < 0) || sp.ExtraFiles+companionFiles(sp.Companion) > maxExtraFiles) {
		err = errors.New("bad spec")
	}
	if err != nil {
		_ = sendReply(replyFile, reply{Error: "jobs: supervisor: " + err.Error()})
		return 2
	}
	s := &supervisor{sp: &sp, stop: stop}
	if err := s.run(replyFile); err != nil {
		return 1
	}
	return 0
}

func sendReply(f *os.File, r reply) error {
	data, _ := json.Marshal(r)
	_, err := f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// supervisor owns one job's command: it starts it, copies its output into
// the logs, feeds its stdin, stops it on request and records how it ended.
type supervisor struct {
	sp   *spec
	stop chan os.Signal

	mu    sync.Mutex // guards st and the status file
	st    *status
	final bool

	logs [2]*boundedLog // stdout (or combined), stderr
}

func (s *supervisor) run(replyFile *os.File) error {
	cmd, pipes, stdin, err := s.prepare()
	var comp *companion
	if err == nil && s.sp.Companion != nil {
		// E.g. what exists before the job is the host's; what git or an
		// agent would obey that the job makes is quarantined when it ends.
		var files []*os.File
		for i := range s.sp.Companion.ExtraFiles {
			files = append(files, os.NewFile(uintptr(firstExtraFD+s.sp.ExtraFiles+i), "companion"))
		}
		comp, err = startCompanion(s.sp.Companion, files)
		for _, f := range files {
			_ = f.Close() // the companion has its copies
		}
		if err != nil {
			err = fmt.Errorf("cannot confine the job: %w", err)
		}
	}
	if err == nil && s.sp.StartBy > 0 && time.Now().UnixNano() > s.sp.StartBy {
		err = errors.New("the job's launch timed out before the command started")
	}
	if err == nil {
		err = cmd.Start()
	}
	closeFiles(cmd.Stdin, cmd.Stdout, cmd.Stderr)
	closeExtraFiles(cmd) // e.g. a sandbox's policy pipe: the command has its copy
	if err != nil {
		closeFiles(pipes[0], pipes[1], stdin.fifo, stdin.w)
		s.closeLogs()
		comp.finish()
		_ = sendReply(replyFile, reply{Error: err.Error()})
		return err
	}
	pid := cmd.Process.Pid
	info, _ := proc.Stat(pid)
	self, _ := proc.Stat(os.Getpid())
	s.st = &status{
		Version:              statusVersion,
		ID:                   s.sp.ID,
		Command:              s.sp.Command,
		State:                stateRunning,
		Combined:             s.sp.Combined,
		Stdin:                s.sp.Stdin,
		SupervisorPID:        os.Getpid(),
		SupervisorStartTicks: self.StartTicks,
		PID:                  pid,
		PGID:                 pid,
		StartTicks:           info.StartTicks,
		StartedAt:            time.Now().UTC(),
		TimeoutMS:            s.sp.TimeoutMS,
		KillGraceMS:          s.sp.GraceMS,
		Sandbox:              s.sp.Sandbox,
		MaxFileBytes:         s.sp.MaxFileBytes,
		CPUTimeMS:            s.sp.CPUTimeMS,
		MemoryLimit:          s.sp.MemoryLimit,
		MaxProcesses:         s.sp.MaxProcesses,
	}
	if err := writeStatus(s.sp.Key, s.sp.Dir, s.st); err != nil {
		// Without a status file nobody can find the job: undo.
		_ = proc.SignalGroup(pid, syscall.SIGKILL)
		_ = cmd.Wait()
		_ = sendReply(replyFile, reply{Error: "cannot write the status file: " + err.Error()})
		return err
	}
	st := *s.st
	if err := sendReply(replyFile, reply{Status: &st}); err != nil && !s.sp.Named {
		// The host died before it learnt the job's random ID: nobody
		// would ever stop it, so stop it now. (A host that gave up
		// waiting stops the job itself, see Manager.abandon.)
		select {
		case s.stop <- syscall.SIGTERM:
		default:
		}
	}

	var pumps sync.WaitGroup
	for i, p := range pipes {
		if p != nil {
			pumps.Go(func() { _, _ = io.Copy(s.logs[i], p) })
		}
	}
	if stdin.fifo != nil {
		go s.feedStdin(stdin.fifo, stdin.w)
	}

	exited := make(chan error, 1)
	go func() { exited <- proc.WaitExited(pid) }()
	var timeout <-chan time.Time
	if s.sp.TimeoutMS > 0 {
		t := time.NewTimer(time.Duration(s.sp.TimeoutMS) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	grace := time.Duration(s.sp.GraceMS) * time.Millisecond
	var stopped, timedOut bool
	select {
	case <-exited:
	case <-s.stop:
		stopped = true
		if g, ok := readStopRequest(s.sp.Key, s.sp.Dir); ok {
			grace = g
			s.mu.Lock()
			s.st.KillGraceMS = g.Milliseconds()
			s.mu.Unlock()
		}
	case <-timeout:
		timedOut = true
	}
	if stopped || timedOut {
		if s.sp.Attr.newPIDNamespace() {
			helperReady(pid, grace)
		}
		proc.Terminate(pid, grace, exited)
	} else {
		// The command is done; so is anything it left in its group. The
		// unreaped leader keeps the group ID from being reused meanwhile.
		if m, err := proc.GroupMembers(pid, pid); err == nil && len(m) > 0 {
			proc.Terminate(pid, grace, nil)
		}
	}
	_ = cmd.Wait() // reap: only now may the PID be reused
	drain := drainAfterExit
	if stopped || timedOut {
		drain = drainAfterKill
	}
	deadline := time.Now().Add(drain)
	for _, p := range pipes {
		if p != nil {
			_ = p.SetReadDeadline(deadline)
		}
	}
	pumps.Wait()
	closeFiles(pipes[0], pipes[1])
	if stdin.fifo != nil {
		removeJobFile(s.sp.Dir, stdinName)
	}
	s.closeLogs()
	if comp != nil {
		q, qerr := comp.finish()
		s.mu.Lock()
		if len(q) > 0 {
			e := *s.st.Sandbox
			e.Quarantined = q
			s.st.Sandbox = &e
		}
		s.st.QuarantineError = qerr
		s.mu.Unlock()
	}
	return s.finish(cmd.ProcessState, stopped, timedOut)
}

type stdinPipe struct {
	fifo *os.File // the FIFO Input writes frames to, opened read-write
	w    *os.File // the command's stdin
}

// prepare opens the logs, the pipes and the stdin FIFO and builds the
// command. pipes are the read ends of stdout (or combined) and stderr.
func (s *supervisor) prepare() (*exec.Cmd, [2]*os.File, stdinPipe, error) {
	var pipes [2]*os.File
	var in stdinPipe
	cmd := &exec.Cmd{
		Path:        s.sp.Path,
		Args:        s.sp.Args,
		Dir:         s.sp.Workdir,
		Env:         s.sp.Env,
		SysProcAttr: sessionAttr(),
	}
	if s.sp.Attr != nil {
		cmd.SysProcAttr = s.sp.Attr.sys()
	}
	for i := range s.sp.ExtraFiles {
		f := os.NewFile(uintptr(firstExtraFD+i), "confiner")
		if f == nil {
			return cmd, pipes, in, errors.New("a descriptor of the confined command is missing")
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	}
	dir, err := openJobDir(s.sp.Dir)
	if err != nil {
		return cmd, pipes, in, err
	}
	defer dir.Close()
	names := []string{stdoutName, stderrName}
	if s.sp.Combined {
		names = []string{outputName}
	}
	for i, name := range names {
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return cmd, pipes, in, err
		}
		s.logs[i] = &boundedLog{f: f, max: s.sp.MaxLogBytes, onDrop: s.dropped(i), onLoss: s.lost(i)}
		r, w, err := os.Pipe()
		if err != nil {
			return cmd, pipes, in, err
		}
		pipes[i] = r
		if i == 0 {
			cmd.Stdout = w
		} else {
			cmd.Stderr = w
		}
	}
	if s.sp.Combined {
		cmd.Stderr = cmd.Stdout
	}
	if s.sp.Stdin {
		if err := dir.Mkfifo(stdinName, 0o600); err != nil {
			return cmd, pipes, in, err
		}
		// Read-write, so the FIFO never reads end-of-file between
		// writers; end-of-file for the command is an explicit frame.
		fifo, err := dir.OpenFIFO(stdinName, os.O_RDWR)
		if err != nil {
			return cmd, pipes, in, err
		}
		r, w, err := os.Pipe()
		if err != nil {
			fifo.Close()
			return cmd, pipes, in, err
		}
		in = stdinPipe{fifo: fifo, w: w}
		cmd.Stdin = r
	}
	return cmd, pipes, in, nil
}

// dropped returns the callback log i calls when it drops bytes.
func (s *supervisor) dropped(i int) func(written, dropped int64) {
	return func(_, dropped int64) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.st == nil || s.final {
			return
		}
		if i == 0 {
			s.st.StdoutDropped = dropped
		} else {
			s.st.StderrDropped = dropped
		}
		_ = writeStatus(s.sp.Key, s.sp.Dir, s.st)
	}
}

// lossWriteInterval is how often at most the supervisor records in the
// status a log's growing count of lost bytes (the final count is always
// recorded).
const lossWriteInterval = time.Second

// lost returns the callback log i calls when a write to it failed.
func (s *supervisor) lost(i int) func(lost int64, err error) {
	var last time.Time
	return func(lost int64, err error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.st == nil || s.final {
			return
		}
		if i == 0 {
			s.st.StdoutLost = lost
		} else {
			s.st.StderrLost = lost
		}
		if s.st.LogError == "" {
			s.st.LogError = logError(err)
		}
		if time.Since(last) >= lossWriteInterval {
			last = time.Now()
			_ = writeStatus(s.sp.Key, s.sp.Dir, s.st)
		}
	}
}

// logError is why a log write failed, as the system says it ("no space
// left on device"), without the path.
func logError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// feedStdin copies frames from the FIFO into the command's stdin until an
// end-of-file frame (or a malformed one) closes it. Later frames are read
// and dropped so that writers never block.
func (s *supervisor) feedStdin(fifo, w *os.File) {
	r := bufio.NewReader(fifo)
	var hdr [frameHeader]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			break
		}
		n := binary.BigEndian.Uint32(hdr[1:])
		kind := hdr[0]
		if (kind != frameData && kind != frameEOF) || n > maxFrameBytes {
			break
		}
		if w != nil {
			if _, err := io.CopyN(w, r, int64(n)); err != nil {
				// The command stopped reading; keep the frames in step.
				_, _ = io.CopyN(io.Discard, r, int64(n))
			}
		} else if _, err := io.CopyN(io.Discard, r, int64(n)); err != nil {
			break
		}
		if kind == frameEOF && w != nil {
			s.closeStdin(w)
			w = nil
		}
	}
	if w != nil {
		s.closeStdin(w)
	}
}

func (s *supervisor) closeStdin(w *os.File) {
	_ = w.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.final {
		return
	}
	s.st.StdinClosed = true
	_ = writeStatus(s.sp.Key, s.sp.Dir, s.st)
}

func (s *supervisor) closeLogs() {
	for _, l := range s.logs {
		if l != nil {
			_ = l.f.Close()
		}
	}
}

// finish records how the command ended.
func (s *supervisor) finish(state *os.ProcessState, stopped, timedOut bool) error {
	var counts [2][3]int64 // written, dropped, lost per log; read before s.mu (lock order)
	var lostErr error
	for i, l := range s.logs {
		if l != nil {
			var err error
			counts[i][0], counts[i][1], counts[i][2], err = l.counts()
			if lostErr == nil {
				lostErr = err
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	code, sig := proc.ExitStatus(state)
	now := time.Now().UTC()
	s.st.State = stateFinished
	s.st.FinishedAt = &now
	s.st.ExitCode = &code
	s.st.Signal = sig
	if state != nil {
		used := (state.UserTime() + state.SystemTime()).Milliseconds()
		s.st.CPUUsedMS = &used
	}
	s.st.Stopped = stopped
	s.st.TimedOut = timedOut
	s.st.StdoutBytes, s.st.StdoutDropped = counts[0][0], counts[0][1]
	s.st.StderrBytes, s.st.StderrDropped = counts[1][0], counts[1][1]
	s.st.StdoutLost, s.st.StderrLost = counts[0][2], counts[1][2]
	if lostErr != nil && s.st.LogError == "" {
		s.st.LogError = logError(lostErr)
	}
	s.final = true
	err := writeStatus(s.sp.Key, s.sp.Dir, s.st)
	if err != nil {
		// The job directory is gone (the workspace was deleted): leave
		// the outcome where the Manager looks for it then.
		if oerr := writeOrphanStatus(s.sp.Key, s.sp.KeyDir, s.sp.Dir, s.st); oerr == nil {
			return nil
		}
	}
	return err
}

func closeFiles(files ...any) {
	for _, f := range files {
		if c, ok := f.(*os.File); ok && c != nil {
			_ = c.Close()
		}
	}
}

// companionFiles counts the descriptors of a companion; 0 without one.
func companionFiles(c *companionSpec) int {
	if c == nil {
		return 0
	}
	return c.ExtraFiles
}
