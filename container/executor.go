package container

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/safefs"
)

// Errors the host program acts on. Check them with [errors.Is].
var (
	// ErrNoEngine reports that no container engine could be found.
	ErrNoEngine = errors.New("container: no container engine")
	// ErrClosed reports a Run after [Executor.Close].
	ErrClosed = errors.New("container: executor is closed")
	// ErrEngine reports that the engine failed a housekeeping call
	// (starting, killing or removing a container).
	ErrEngine = errors.New("container: engine failed")
)

// maxArgLen is the kernel's limit on one argv string (MAX_ARG_STRLEN); the
// command reaches the engine client as one.
const maxArgLen = 32 * 4096

// runMarker is the variable that tags every process of one command in a
// persistent container, so a timeout can find them all.
const runMarker = "SHELLCAP_RUN"

// Executor runs commands in containers. It is safe for concurrent use.
type Executor struct {
	sh         *shellcap.Shell
	opts       Options        // resolved
	id         string         // labels every container of this executor
	privateDir string         // 0700, holds env files
	ulimits    []string       // the Shell's resource limits as --ulimit flags
	prelude    string         // run before each command (the Shell's MemoryLimit)
	killGrace  time.Duration  // between SIGTERM and SIGKILL (the Shell's KillGrace)
	budgets    [2]core.Budget // the Shell's StdoutBudget and StderrBudget

	mu      sync.Mutex
	name    string // the persistent container, once started
	started bool
	closed  bool
}

// New validates opts and returns an Executor that runs the commands sh
// admits (its input checks, policy and approval) in containers, with sh's
// settings wherever a field of opts is zero (see the package
// documentation for the table). It starts no container: in persistent
// mode the container starts on the first Run. A nil sh, or a bad option,
// is an error wrapping shellcap.ErrInvalidOptions (as
// *shellcap.OptionError); a missing engine wraps ErrNoEngine.
func New(sh *shellcap.Shell, opts Options) (*Executor, error) {
	if sh == nil {
		return nil, optionErr("Shell", "container.New needs a *shellcap.Shell (its policy, approval and settings apply to every command)")
	}
	c := core.Of(sh)
	if c.Settings.PersistCwd {
		return nil, optionErr("PersistCwd", "the container executor starts every command in the workspace (or Request.Dir) and cannot keep a directory between commands; turn PersistCwd off for this Shell")
	}
	o, err := opts.resolve(c.Settings, sh.ReadOnly())
	if err != nil {
		return nil, err
	}
	if o.WritableWorkspace {
		// Made on the host before any command could plant a link there,
		// so that every container covers it (runArgs).
		st, err := safefs.OpenState(o.Workspace, true)
		if err != nil {
			return nil, fmt.Errorf("container: the workspace's state directory: %w", err)
		}
		_ = st.Close()
	}
	e := &Executor{sh: sh, opts: o, id: newName(), ulimits: shellUlimits(c.Settings),
		prelude: shellPrelude(c.Settings), killGrace: c.Settings.KillGrace,
		budgets: [2]core.Budget{c.Settings.StdoutBudget, c.Settings.StderrBudget}}
	if _, err := e.environment(nil); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "shellcap-container-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	e.privateDir = dir
	if o.Mode == Persistent {
		e.name = newName()
	}
	return e, nil
}

// Name returns the persistent container's name ("" in stateless mode). The
// container exists from the first Run until Close.
func (e *Executor) Name() string { return e.name }

// Engine returns the path of the container engine in use.
func (e *Executor) Engine() string { return e.opts.Engine }

// newName returns a fresh container name.
func newName() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "shellcap-" + hex.EncodeToString(b[:])
}

// Run runs one command in a container and reports what happened, like
// [shellcap.Shell.Run], whose signature it shares: problems the model can
// fix, and refusals (a NUL byte, a timeout out of range, a directory
// outside the workspace, the Shell's policy or approval) come back as a
// Result whose Err is set (errors.Is against shellcap's sentinels) and
// which has no exit code, since nothing ran. The error is for the host
// program: a closed executor or Shell, an engine that cannot start the
// persistent container. Request.Dir is relative to /workspace (or
// absolute inside it).
func (e *Executor) Run(ctx context.Context, req shellcap.Request) (*shellcap.Result, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The host's problems first, like Shell.Run: a closed Shell, bad
	// Request.Env.
	if err := checkEnv("Request.Env", req.Env); err != nil {
		return nil, err
	}
	vars, err := e.environment(req.Env)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res := &shellcap.Result{
		Command:     req.Command,
		Cwd:         e.homeDir(),
		TextLimit:   e.opts.MaxOutputChars,
		HeadAndTail: e.opts.HeadAndTail,
	}
	defer func() { res.Duration = time.Since(start) }()

	seam := core.Of(e.sh)
	// Cheap checks first, so no one is asked to approve a request that
	// would be refused anyway (the order of Shell.Run).
	timeout, err := seam.Timeout(req.Timeout, e.opts.DefaultTimeout, e.opts.MaxTimeout)
	if err != nil {
		res.Err = err
		return res, nil
	}
	if len(e.prelude)+len(req.Command)+1 > maxArgLen {
		res.Err = &shellcap.RequestError{Kind: shellcap.ErrCommandTooLong}
		return res, nil
	}
	if err := seam.Admit(ctx, req.Command); err != nil {
		res.Err = err
		return res, nil
	}
	res.Timeout = timeout
	dir, rerr := e.workdir(req.Dir)
	if rerr != nil {
		res.Err = rerr
		return res, nil
	}
	res.Cwd = dir

	id := newName()
	if e.opts.Mode == Persistent {
		vars[runMarker] = id
		if err := e.ensureStarted(ctx); err != nil {
			return nil, err
		}
	}
	envFile, err := e.writeEnvFile(vars)
	if err != nil {
		return nil, err
	}
	defer os.Remove(envFile)

	j := &job{
		exec:     e,
		id:       id,
		argv:     e.commandArgv(id, envFile, dir, req),
		stdin:    req.Stdin,
		onOutput: req.OnOutput,
		timeout:  timeout,
	}
	out, err := j.run(ctx)
	if err != nil {
		return nil, err
	}
	e.fill(res, out)
	if e.opts.Mode == Persistent && engineMayHaveFailed(res) && !e.alive() {
		e.forget()
		res.Notes = append(res.Notes, "The container had stopped (perhaps out of memory); the next command starts a fresh one, without the files this one had in /tmp.")
	}
	return res, nil
}

// runner is what Executor and shellcap.Shell have in common: Run keeps the
// signature of Shell.Run, so a front end holds either behind one interface.
type runner interface {
	Run(ctx context.Context, req shellcap.Request) (*shellcap.Result, error)
}

var (
	_ runner = (*Executor)(nil)
	_ runner = (*shellcap.Shell)(nil)
)

// engineMayHaveFailed reports a result that may be the engine's failure
// rather than the command's: podman's and docker's exit codes for their own
// errors, or a message in their style.
func engineMayHaveFailed(res *shellcap.Result) bool {
	if res.ExitCode == 0 || res.TimedOut || res.Canceled {
		return false
	}
	return res.ExitCode == 125 || res.ExitCode == 126 || res.ExitCode == 255 || strings.HasPrefix(res.Stderr, "Error")
}

// alive reports whether the persistent container is running.
func (e *Executor) alive() bool {
	out, err := e.engine(context.Background(), "inspect", "--format", "{{.State.Running}}", e.name)
	return err == nil && strings.TrimSpace(out) == "true"
}

// forget removes a stopped persistent container so the next Run starts a
// new one.
func (e *Executor) forget() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || !e.started {
		return
	}
	_ = e.remove(e.name)
	e.started = false
}

// commandArgv renders the engine command line for one command.
func (e *Executor) commandArgv(id, envFile, dir string, req shellcap.Request) []string {
	argv := append([]string{e.opts.Engine}, e.opts.EngineArgs...)
	if e.opts.Mode == Persistent {
		argv = append(argv, "exec")
	} else {
		argv = append(argv, "run", "--rm")
	}
	if req.Stdin != nil {
		argv = append(argv, "--interactive")
	}
	argv = append(argv, "--env-file", envFile, "--workdir", dir)
	script := e.prelude + req.Command
	if e.opts.Mode == Persistent {
		return append(argv, e.name, e.opts.ShellPath, "-c", script)
	}
	argv = append(argv, e.runArgs(id)...)
	argv = append(argv, e.image()...)
	return append(argv, e.opts.ShellPath, "-c", script)
}

// homeDir is where commands start by default.
func (e *Executor) homeDir() string {
	if !e.opts.NoWorkspace {
		return WorkspaceMount
	}
	return "/tmp"
}

// workdir resolves Request.Dir inside the container.
func (e *Executor) workdir(dir string) (string, *shellcap.RequestError) {
	if dir == "" {
		return e.homeDir(), nil
	}
	if strings.ContainsRune(dir, 0) {
		return "", &shellcap.RequestError{Kind: shellcap.ErrNULByte}
	}
	home := e.homeDir()
	p := dir
	if !path.IsAbs(p) {
		p = path.Join(home, p)
	}
	p = path.Clean(p)
	if p != home && !strings.HasPrefix(p, home+"/") {
		return "", &shellcap.RequestError{Kind: shellcap.ErrWorkdirOutside,
			Msg: fmt.Sprintf("The requested directory %s is outside %s.", p, home)}
	}
	return p, nil
}

func (e *Executor) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// ensureStarted starts the persistent container once.
func (e *Executor) ensureStarted(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return ErrClosed
	}
	if e.started {
		return nil
	}
	// PID 1 waits in a loop, so it reaps orphans and ends on SIGTERM.
	keeper := "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"
	args := append([]string{"run", "--detach"}, e.runArgs(e.name)...)
	args = append(args, e.image()...)
	args = append(args, e.opts.ShellPath, "-c", keeper)
	if _, err := e.engine(ctx, args...); err != nil {
		e.remove(e.name) // a half-created container must not stay behind
		return err
	}
	e.started = true
	return nil
}

// engine runs one housekeeping call, bounded by Options.EngineTimeout.
func (e *Executor) engine(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.EngineTimeout)
	defer cancel()
	argv := append(append([]string(nil), e.opts.EngineArgs...), args...)
	cmd := exec.CommandContext(ctx, e.opts.Engine, argv...)
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		err = fmt.Errorf("%w: %s %s: %v: %s", ErrEngine, e.opts.Engine, args[0], err, strings.TrimSpace(out.String()))
		core.Of(e.sh).Logger.Debug("container: engine call failed", "executor", e.id, "err", err)
		return out.String(), err
	}
	return out.String(), nil
}

// remove force-removes a container, killing it at once; a container that
// does not exist is not an error. It retries once.
func (e *Executor) remove(name string) error {
	args := []string{"rm", "--force"}
	if engineKind(e.opts.Engine) == "podman" {
		args = append(args, "--time", "0")
	}
	args = append(args, name)
	var err error
	for range 2 {
		var out string
		out, err = e.engine(context.Background(), args...)
		if err == nil || isNoSuchContainer(out) {
			return nil
		}
	}
	return err
}

func isNoSuchContainer(out string) bool {
	out = strings.ToLower(out)
	return strings.Contains(out, "no such container") || strings.Contains(out, "no container with name or id")
}

// Close removes the persistent container, if one was started, and the
// executor's private files, and refuses further Runs. Stateless containers
// are removed by the command that ran them. The Shell stays open: it is
// the caller's to close. It is safe to call more than once.
func (e *Executor) Close() error {
	e.mu.Lock()
	already := e.closed
	started := e.started
	e.closed, e.started = true, false
	e.mu.Unlock()
	if already {
		return nil
	}
	var err error
	if started {
		err = e.remove(e.name)
	}
	if rerr := os.RemoveAll(e.privateDir); err == nil {
		err = rerr
	}
	return err
}
