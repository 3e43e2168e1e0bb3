package shellcap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/guardian"
	"github.com/shellcap/shellcap/internal/textfmt"
	"github.com/shellcap/shellcap/policy"
)

// Shell runs commands for an agent in one workspace. It is safe for
// concurrent use; each Run starts its own shell process.
type Shell struct {
	opts      Options // resolved: defaults filled in
	root      string  // workspace, absolute with symlinks resolved
	shellPath string
	shellArg0 string
	prelude   string // resource limits, applied by the shell before the command
	env       map[string]string
	envList   []string // env rendered, for requests that add nothing
	readOnly  bool
	log       *slog.Logger
	warnings  []string
	policy    *policy.Policy
	decisions decisionCache
	launcher  Launcher           // the sandbox's, when it keeps one up
	guardian  *guardian.Guardian // Options.DieWithProcess

	mu        sync.Mutex
	cwd       string // remembered directory (PersistCwd); "" means root
	closed    bool
	leftover  []leftGroup
	approvals map[string]bool // remembered answers, by exact command
}

// New validates opts and returns a Shell. A missing workspace, an invalid
// environment variable or a bad limit is an error wrapping
// ErrInvalidOptions (as *OptionError, naming the field).
//
// New marks the descriptors this process inherited without close-on-exec
// as close-on-exec, so that none reaches a command (os/exec would pass
// them on to every child).
func New(opts Options) (*Shell, error) {
	o := opts
	o.Env = cloneMap(opts.Env)
	o.PassEnv = append([]string(nil), opts.PassEnv...)
	o.DeniedEnvPatterns = append([]string(nil), opts.DeniedEnvPatterns...)
	if err := fillDefaults(&o); err != nil {
		return nil, err
	}
	root, err := resolveWorkspace(o.Workspace)
	if err != nil {
		return nil, err
	}
	if err := closeInheritedOnExec(); err != nil {
		return nil, fmt.Errorf("shellcap: cannot keep inherited descriptors from commands: %w", err)
	}
	o.Workspace = root
	shellPath, err := resolveShell(o.ShellPath)
	if err != nil {
		return nil, err
	}
	env, err := buildEnv(&o, hostLookup)
	if err != nil {
		return nil, err
	}
	pol, err := newPolicy(&o, env)
	if err != nil {
		return nil, err
	}
	s := &Shell{
		opts:      o,
		root:      root,
		shellPath: shellPath,
		shellArg0: filepath.Base(shellPath),
		env:       env,
		envList:   envList(env, o.DeniedEnvPatterns),
		readOnly:  o.ReadOnly || !writable(root),
		log:       o.Logger,
		policy:    pol,
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.prelude, s.warnings, err = limitsPrelude(&o, s.shellArg0); err != nil {
		return nil, err
	}
	for _, w := range s.warnings {
		s.log.Warn("shellcap: limit not enforced", "detail", w)
	}
	if o.Sandbox != nil {
		if _, ok := o.Sandbox.(LaunchingConfiner); o.PersistCwd && !ok {
			return nil, optionErr("PersistCwd", "needs a Sandbox that is a LaunchingConfiner (such as sandbox.Confiner)")
		}
		if !s.readOnly {
			// Before any sandbox starts: a state directory that exists is
			// hidden from every confined command, so none can plant links
			// in it.
			if err := ensureStateDir(root); err != nil {
				return nil, err
			}
		}
		if s.launcher, err = openSandbox(o.Sandbox, root); err != nil {
			return nil, err
		}
	}
	if o.DieWithProcess {
		if s.guardian, err = guardian.Start(); err != nil {
			if s.launcher != nil {
				_ = s.launcher.Close()
			}
			return nil, optionErr("DieWithProcess", "%v", err)
		}
	}
	if !s.readOnly {
		removeExpiredOutputs(root, o.OutputRetention)
	}
	return s, nil
}

// watchGroup makes process group pgid, whose leader pgid this process
// started and has not reaped, die with this process (Options.DieWithProcess);
// release ends that once the group is gone. Without DieWithProcess it does
// nothing. An error means the group would not die with us: stop it.
func (s *Shell) watchGroup(pgid int) (release func(), err error) {
	if s.guardian == nil {
		return func() {}, nil
	}
	return s.guardian.WatchGroup(pgid)
}

// watchDir makes directory path be removed when this process ends
// (Options.DieWithProcess), even by SIGKILL; release ends that.
func (s *Shell) watchDir(path string) (release func(), err error) {
	if s.guardian == nil {
		return func() {}, nil
	}
	return s.guardian.WatchDir(path)
}

func fillDefaults(o *Options) error {
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"DefaultTimeout", &o.DefaultTimeout, DefaultTimeout},
		{"MaxTimeout", &o.MaxTimeout, DefaultMaxTimeout},
		{"KillGrace", &o.KillGrace, DefaultKillGrace},
		{"OutputRetention", &o.OutputRetention, DefaultOutputRetention},
	}
	for _, d := range durations {
		if *d.v < 0 {
			return optionErr(d.name, "must not be negative (got %v)", *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.DefaultTimeout > o.MaxTimeout {
		return optionErr("DefaultTimeout", "%v is above MaxTimeout %v", o.DefaultTimeout, o.MaxTimeout)
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.MaxOutputChars == 0 {
		o.MaxOutputChars = DefaultMaxOutputChars
	}
	for _, b := range []struct {
		name string
		b    Budget
	}{{"StdoutBudget", o.StdoutBudget}, {"StderrBudget", o.StderrBudget}} {
		if b.b.Head < 0 || b.b.Tail < 0 {
			return optionErr(b.name, "Head and Tail must not be negative (got %d and %d)", b.b.Head, b.b.Tail)
		}
	}
	switch {
	case o.MaxFileBytes < 0:
		return optionErr("MaxFileBytes", "must not be negative")
	case o.MemoryLimit < 0:
		return optionErr("MemoryLimit", "must not be negative")
	case o.CPUTime < 0:
		return optionErr("CPUTime", "must not be negative")
	case o.MaxProcesses < 0:
		return optionErr("MaxProcesses", "must not be negative")
	}
	return nil
}

// newPolicy compiles the policy rules and checks the approval settings.
// The policy is told the environment commands run in (NonInteractiveEnv()'s
// GIT_EDITOR=true makes git commit --amend non-interactive), unless the
// rules already say.
func newPolicy(o *Options, env map[string]string) (*policy.Policy, error) {
	switch {
	case o.ApprovalMode < ApproveAsk || o.ApprovalMode > ApproveNone:
		return nil, optionErr("ApprovalMode", "unknown mode %d", int(o.ApprovalMode))
	case o.ApprovalMode == ApproveAll && o.Approve == nil:
		return nil, optionErr("ApprovalMode", "ApproveAll needs an Approve function")
	case o.ApprovalMode == ApproveNone && !o.AcknowledgeUnsafe:
		return nil, optionErr("ApprovalMode", "ApproveNone runs commands with no approval and no sandbox; set AcknowledgeUnsafe to accept that")
	}
	rules := o.Policy
	if rules.Environment == nil {
		rules.Environment = map[string]string{}
		for k, v := range env {
			if !denied(k, o.DeniedEnvPatterns) {
				rules.Environment[k] = v
			}
		}
	}
	p, err := policy.New(rules)
	if err != nil {
		return nil, optionErr("Policy", "%v", err)
	}
	return p, nil
}

func resolveWorkspace(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", optionErr("Workspace", "cannot determine the current directory: %v", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", optionErr("Workspace", "%v", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", optionErr("Workspace", "%s does not exist or cannot be read: %v", abs, err)
	}
	if !fi.IsDir() {
		return "", optionErr("Workspace", "%s is not a directory", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", optionErr("Workspace", "%v", err)
	}
	return real, nil
}

func resolveShell(sh string) (string, error) {
	if sh == "" {
		if p, err := exec.LookPath("bash"); err == nil {
			return p, nil
		}
		sh = "/bin/sh"
	}
	p, err := exec.LookPath(sh)
	if err != nil {
		return "", optionErr("ShellPath", "%v", err)
	}
	return filepath.Abs(p)
}

// Workspace returns the absolute workspace directory.
func (s *Shell) Workspace() string { return s.root }

// ReadOnly reports whether the workspace offers no command execution.
func (s *Shell) ReadOnly() bool { return s.readOnly }

// Warnings lists limits the kernel will not enforce for this Shell (for
// example MaxProcesses for root). They are logged at New too.
func (s *Shell) Warnings() []string { return append([]string(nil), s.warnings...) }

// Run runs one command and reports what happened. Problems the model can fix
// (a NUL byte, a timeout out of range, a deleted working directory) and
// refusals (the policy, the approver, the sandbox) come back as a Result
// whose Err is set and whose Text explains; such a command did not run. The
// error is for the host program: a read-only or vanished workspace, a
// closed Shell, a process that cannot be started.
//
// Run takes the same steps as every executor built on the Shell (package
// internal/core): Timeout, Admit, the environment and directory of Cmd,
// Start, then the shared exit status, notes and capture sizing.
func (s *Shell) Run(ctx context.Context, req Request) (*Result, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // nothing was started
	}
	res := s.newResult(req.Command)
	start := time.Now()
	defer func() { res.Duration = time.Since(start) }()

	// Cheap checks first, so no one is asked to approve a request that
	// would be refused anyway.
	timeout, rerr := s.timeout(req.Timeout)
	if rerr != nil {
		res.Err = rerr
		return res, nil
	}
	if err := s.authorize(ctx, req.Command); err != nil {
		res.Err = err
		return res, nil
	}
	res.Timeout = timeout
	env, err := s.requestEnv(req.Env)
	if err != nil {
		return nil, err
	}
	dir, err := s.workdir(req.Dir)
	if err != nil {
		var re *RequestError
		if errors.As(err, &re) {
			res.Err = re
			return res, nil
		}
		return nil, err
	}
	res.Cwd = dir

	var record *cwdRecord
	var prefix string
	if s.opts.PersistCwd && req.Dir == "" {
		if record, err = newCwdRecord(); err != nil {
			s.log.Warn("shellcap: cannot track the working directory", "err", err)
		} else {
			prefix = cwdTrapFD
			defer record.close()
		}
	}
	cmd, rerr := s.command(prefix, req.Command, dir, env)
	if rerr != nil {
		res.Err = rerr
		return res, nil
	}
	if record != nil {
		cmd.ExtraFiles = []*os.File{record.w}
	}
	if s.opts.Sandbox == nil {
		cmd.SysProcAttr = runAttr() // a sandbox starts its commands its own way
	}

	stdout, stderr := s.newCapture(Stdout), s.newCapture(Stderr)
	out, err := execute(ctx, &spawn{
		cmd:      cmd,
		start:    s.start,
		confined: s.opts.Sandbox != nil,
		stdin:    req.Stdin,
		stdout:   stdout.buf,
		stderr:   stderr.buf,
		onOutput: req.OnOutput,
		onStart:  req.OnStart,
		timeout:  timeout,
		grace:    s.opts.KillGrace,
		maxBytes: s.opts.MaxOutputBytes,
		watch:    s.watchGroup,
	})
	if err != nil {
		stdout.discard()
		stderr.discard()
		var refusal *sandboxRefusal
		if errors.As(err, &refusal) {
			res.Err = refusal
			return res, nil
		}
		serr := startError(err, dir)
		var re *RequestError
		if errors.As(serr, &re) {
			if record != nil && s.forgetCwd(dir) {
				// It vanished between the check and the start.
				re = workdirGone(dir, s.root, errors.Is(err, syscall.ENOTDIR))
			}
			res.Err = re
			return res, nil
		}
		if !s.rootExists() {
			return nil, fmt.Errorf("%w: %s", ErrWorkspaceGone, s.root)
		}
		return nil, serr
	}
	res.Sandbox = out.enforcement
	s.afterSandboxed(res)
	s.fill(res, out, stdout, stderr, req.StopBackground)
	if record != nil {
		s.updateCwd(res, record.read())
	}
	return res, nil
}

// forgetCwd forgets the remembered directory (PersistCwd) when it is dir,
// reporting whether it was.
func (s *Shell) forgetCwd(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cwd == "" || s.cwd != dir {
		return false
	}
	s.cwd = ""
	return true
}

// checkOpen returns ErrClosed once Close was called.
func (s *Shell) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

func (s *Shell) usable() error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case s.readOnly:
		return ErrReadOnlyWorkspace
	}
	return nil
}

func (s *Shell) newResult(command string) *Result {
	return &Result{
		Command:     command,
		Cwd:         s.root,
		TextLimit:   s.opts.MaxOutputChars,
		HeadAndTail: s.opts.HeadAndTail,
	}
}

// timeout resolves the request's timeout within the Shell's range.
func (s *Shell) timeout(t time.Duration) (time.Duration, *RequestError) {
	return resolveTimeout(t, s.opts.DefaultTimeout, s.opts.MaxTimeout)
}

// resolveTimeout resolves a requested timeout: zero means def; anything
// else must be at least core.MinTimeout and at most max. Every executor's
// timeouts go through it (core.Shell.Timeout), and the front ends use the
// same message (core.TimeoutRange), so the model reads one text
// everywhere.
func resolveTimeout(t, def, max time.Duration) (time.Duration, *RequestError) {
	switch {
	case t == 0:
		return def, nil
	case t < core.MinTimeout || t > max:
		got := textfmt.FormatSeconds(t)
		if t > -core.MinTimeout && t < core.MinTimeout {
			got = t.String() // FormatSeconds would round it to 0s
		}
		return 0, &RequestError{Kind: ErrTimeoutRange, Msg: core.TimeoutRange("", max, got)}
	}
	return t, nil
}

// checkCommand rejects what no process can receive (NUL bytes, invalid
// UTF-8) and a command with nothing to run.
func checkCommand(cmd string) *RequestError {
	for i := 0; i < len(cmd); i++ {
		if cmd[i] == 0 {
			return requestErr(ErrNULByte, "")
		}
	}
	if !utf8.ValidString(cmd) {
		return requestErr(ErrInvalidUTF8, "")
	}
	if strings.TrimSpace(cmd) == "" {
		return requestErr(ErrEmptyCommand, "")
	}
	return nil
}

// requestEnv renders the environment for one command.
func (s *Shell) requestEnv(extra map[string]string) ([]string, error) {
	if len(extra) == 0 {
		return s.envList, nil
	}
	if err := checkEnvMap("Request.Env", extra); err != nil {
		return nil, err
	}
	env := make(map[string]string, len(s.env)+len(extra))
	for k, v := range s.env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return envList(env, s.opts.DeniedEnvPatterns), nil
}

func (s *Shell) rootExists() bool {
	fi, err := os.Stat(s.root)
	return err == nil && fi.IsDir()
}

// fill turns the outcome into the result's fields and notes.
// With stopBackground (Request.StopBackground), processes left in the
// background are stopped now instead of at Close.
func (s *Shell) fill(res *Result, out *outcome, stdout, stderr *streamCapture, stopBackground bool) {
	res.TimedOut = out.timedOut
	res.Canceled = out.canceled
	res.OutputLimitExceeded = out.limitHit
	res.ExitCode, res.Signal = core.ExitStatus(out.state)
	stdout.finish(res, s.opts.KeepANSI)
	stderr.finish(res, s.opts.KeepANSI)
	if out.canceled {
		res.Notes = append(res.Notes, core.CanceledNote(core.StoppedGroup))
	}
	if out.limitHit {
		res.Notes = append(res.Notes, core.OutputLimitNote(s.opts.MaxOutputBytes, core.StoppedCommand))
	}
	if len(out.leftover) > 0 && stopBackground {
		stopLeftovers([]leftGroup{{out.pgid, out.leftover, out.release}}, s.opts.KillGrace)
		res.Notes = append(res.Notes, stoppedNote(out.leftover))
	} else if len(out.leftover) > 0 {
		res.LeftRunning = make([]int, len(out.leftover))
		for i, p := range out.leftover {
			res.LeftRunning[i] = p.PID
		}
		res.Notes = append(res.Notes, leftoverNote(out.pgid, out.leftover))
		s.rememberLeftover(out.pgid, out.leftover, out.release)
	}
	if !res.TimedOut {
		res.Notes = append(res.Notes, s.limitNotes(res, out)...)
	}
	s.keepOutputs(res, stdout, stderr)
}

// Close stops every background process that commands left running and
// refuses further Runs. It is safe to call more than once.
func (s *Shell) Close() error {
	s.mu.Lock()
	groups := s.leftover
	wasClosed := s.closed
	s.leftover, s.closed = nil, true
	s.mu.Unlock()
	stopLeftovers(groups, s.opts.KillGrace)
	var err error
	if s.launcher != nil && !wasClosed {
		err = s.launcher.Close()
	}
	if s.guardian != nil && !wasClosed {
		_ = s.guardian.Close() // kills whatever is still registered
	}
	return err
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
