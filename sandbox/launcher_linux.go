package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"github.com/shellcap/shellcap"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// Launcher keeps one sandbox up and starts commands in it. Building the
// namespaces, mounts, Landlock and seccomp rules costs a helper process
// and several milliseconds; a Launcher pays that once, in NewLauncher, and
// then starts each command with one fork from inside the finished sandbox.
//
// A started command is a child of the calling process, exactly as if
// exec.Cmd.Start had started it: the caller waits for it and reaps it
// (os.Process.Wait, or waitid on its PID), and signals it or its process
// group by its PID. It runs in a new session (or, when its SysProcAttr asks
// for Setpgid, a new process group), confined by every layer in its Enforcement.
//
// What commands of one Launcher share, unlike commands sandboxed one by one
// with Wrap: the pid namespace (a command may see and signal what earlier
// commands left running), the private /tmp and /dev/shm, and the set of
// protected paths, which is found when the Launcher starts. Closing the
// Launcher kills every process still in its pid namespace.
//
// A Launcher is safe for concurrent use. When its helper dies (killed from
// outside, out of memory), the next Start builds a new one.
type Launcher struct {
	cfg Config

	mu     sync.Mutex
	h      *launcherProc // nil before the first start and after a failure
	report *report
	closed bool
	// guard protects what exists at each command's start and
	// quarantines what git would obey that appeared since; nil when
	// nothing in the profile is writable and protected.
	guard *guard
}

// launcherProc is one running launcher helper.
type launcherProc struct {
	ctl    int      // our end of the control socket
	grants fdGrants // what a descriptor passed to a command may reach
	cmd    *exec.Cmd
	done   chan struct{} // closed when the helper has exited and been reaped
}

// launcherStartTimeout bounds how long NewLauncher waits for the helper to
// report that the sandbox is in place.
const launcherStartTimeout = 30 * time.Second

// NewLauncher starts a launcher for cfg. It fails, like Wrap, when a layer
// the profile needs is unavailable and cfg.AllowDegraded is false, and
// when the helper cannot build the sandbox; the error says why.
// cfg.Workspace must be set; it is also the commands' default directory.
func NewLauncher(cfg Config) (*Launcher, error) {
	if cfg.Workspace == "" {
		return nil, errors.New("sandbox: NewLauncher needs a Workspace")
	}
	l := &Launcher{cfg: cfg}
	// The host's scan of the workspace runs while the helper makes its
	// own: before either is done, no command runs.
	type guarded struct {
		g   *guard
		err error
	}
	gc := make(chan guarded, 1)
	ws, roots, protects := guardRoots(cfg)
	go func() {
		if !protects {
			gc <- guarded{}
			return
		}
		g, err := newGuardScan(ws, roots, true, true)
		gc <- guarded{g, err}
	}()
	h, rep, err := startLauncher(cfg)
	gr := <-gc
	if err != nil || gr.err != nil {
		if gr.g != nil {
			gr.g.close()
		}
		if err == nil {
			h.close()
			err = fmt.Errorf("sandbox: %w", gr.err)
		}
		return nil, err
	}
	l.h, l.report, l.guard = h, rep, gr.g
	if l.guard != nil {
		if err := h.protect(l.guard.takeInitial()); err != nil {
			l.Close()
			return nil, err
		}
	}
	return l, nil
}

// protect has the launcher protect found before anything starts.
func (h *launcherProc) protect(found []metaPath) error {
	if len(found) == 0 {
		return nil
	}
	req := &launchRequest{ProtectOnly: true}
	for _, f := range found {
		req.Protect = append(req.Protect, protectEntry{f.path, f.kind})
	}
	if err := writeFrame(h.ctl, req, nil); err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	var rep launchReply
	got, err := readFrame(h.ctl, &rep)
	closeFDs(got)
	if err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	if err := rep.err(); err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	return nil
}

// guardRoots are the workspace and the writable roots a launcher for cfg
// protects, ok false when it protects none (another profile, or no mount
// namespace on this machine).
func guardRoots(cfg Config) (ws string, roots []string, ok bool) {
	if prof, err := cfg.profile(); err != nil || prof != WorkspaceWrite || !probe().UserNamespaces {
		return "", nil, false
	}
	ws, err := existingAbs(cfg.Workspace)
	if err != nil {
		return "", nil, false
	}
	extra, err := existingAll(cfg.ExtraWritable)
	if err != nil {
		return "", nil, false
	}
	return ws, dedupe(append([]string{ws}, extra...), nil), true
}

// BeforeCommand protects what exists in the workspace now, as Start does
// before each command: a shell started earlier (a session) calls it
// before each step it runs.
func (l *Launcher) BeforeCommand() error {
	if l.guard == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.h == nil || l.h.dead() {
		return nil // nothing runs; the next Start protects from scratch
	}
	found, err := l.guard.before(l.h.alive)
	if err != nil {
		return fmt.Errorf("sandbox: protect the workspace: %w", err)
	}
	return l.h.protect(found)
}

// AfterCommand checks the workspace once a command started by Start has
// ended (and after each step of a long-lived shell started by it): names
// git or an agent would obey (a hook, commondir, config.worktree, the
// config of a repository the command made, a .git pointer, an agent's
// configuration) that appeared or changed since the last check are moved
// into the workspace's .shellcap/quarantine, which the sandbox hides. It
// returns them, relative to the workspace. The error says what could not
// be checked or moved.
func (l *Launcher) AfterCommand() ([]string, error) {
	if l.guard == nil {
		return nil, nil
	}
	return l.guard.after()
}

// Enforcement says what every command of this launcher is confined by.
func (l *Launcher) Enforcement() *shellcap.Enforcement {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.report.enforcement()
}

// Start starts cmd, prepared but not started, inside the sandbox and
// returns its process; cmd itself is left unstarted and must not be
// started. cmd's Path, Args, Env (nil means this process's environment),
// Dir (empty means the workspace), Stdin, Stdout, Stderr and ExtraFiles are
// used; the standard streams must be *os.File or nil (the null device).
// Start refuses a command one of whose descriptors could reach a host file
// beyond the profile's grants (see Wrap).
// SysProcAttr may only ask for Setsid or Setpgid.
func (l *Launcher) Start(cmd *exec.Cmd) (*os.Process, error) {
	req, files, err := launchRequestFor(cmd)
	if err != nil {
		return nil, err
	}
	defer closeFDs(files.opened)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errors.New("sandbox: launcher is closed")
	}
	for attempt := 0; ; attempt++ {
		if l.h == nil {
			h, rep, err := startLauncher(l.cfg)
			if err != nil {
				return nil, err
			}
			l.h, l.report = h, rep
			if l.guard != nil {
				l.guard.resent()
			}
		}
		if l.guard != nil {
			found, err := l.guard.before(l.h.alive)
			if err != nil {
				return nil, fmt.Errorf("sandbox: protect the workspace: %w", err)
			}
			req.Protect = req.Protect[:0]
			for _, f := range found {
				req.Protect = append(req.Protect, protectEntry{f.path, f.kind})
			}
		}
		if err := l.h.grants.checkFDs(files.fds); err != nil {
			return nil, err
		}
		p, err := l.h.start(req, files.fds)
		if err == nil || attempt > 0 || !(errors.Is(err, errPeerGone) || l.h.dead()) {
			return p, err
		}
		// The helper died since the last command (its socket is closed,
		// though it may not be reaped yet): build a new one, once.
		l.h.close()
		l.h = nil
	}
}

// Close stops the launcher: every process still in its pid namespace is
// killed. Commands already reaped are unaffected; the caller still reaps
// the ones it started. Close is idempotent.
func (l *Launcher) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.h != nil {
		l.h.close()
		l.h = nil
	}
	if l.guard != nil {
		l.guard.close()
	}
	return nil
}

// startLauncher plans the sandbox, starts the helper and waits until it
// says the sandbox is in place.
func startLauncher(cfg Config) (*launcherProc, *report, error) {
	probeCmd := exec.Command("/bin/true")
	probeCmd.Dir = cfg.Workspace
	probeCmd.Env = []string{}
	pol, rep, err := plan(probeCmd, cfg, probe())
	if err != nil {
		return nil, nil, err
	}
	base := launcherProxyFD // after the policy and the control socket
	if pol.Network == NetworkAllowlist {
		base++ // and the proxy's
	}
	idFiles, err := identityFiles(pol, rep, base, cfg.AllowDegraded)
	if err != nil {
		return nil, nil, err
	}
	defer closeFiles(idFiles)
	pr, err := encodePolicy(pol)
	if err != nil {
		return nil, nil, err
	}
	defer pr.Close()
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	remote := os.NewFile(uintptr(pair[1]), "sandbox-ctl")
	defer remote.Close()
	self, err := reexec.Self()
	if err != nil {
		unix.Close(pair[0])
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	files := []*os.File{pr, remote}
	if pol.Network == NetworkAllowlist {
		// The proxy serves until the launcher, whose pidfd it gets, exits.
		proxyCtl, err := startProxy(pol.allow, pol.proxy)
		if err != nil {
			unix.Close(pair[0])
			return nil, nil, err
		}
		defer proxyCtl.Close()
		files = append(files, proxyCtl)
	}
	files = append(files, idFiles...)
	cmd := &exec.Cmd{
		Path:       self,
		Args:       []string{"shellcap-sandbox-launcher", reexec.Marker, launcherEntry},
		Env:        []string{},
		Dir:        "/",
		Stderr:     os.Stderr,
		ExtraFiles: files,
	}
	cmd.SysProcAttr = helperAttr(nil, pol)
	// The launcher's commands share a pid namespace that the launcher
	// creates for its children only; see launcherd_linux.go.
	cmd.SysProcAttr.Cloneflags &^= unix.CLONE_NEWPID
	if err := cmd.Start(); err != nil {
		unix.Close(pair[0])
		return nil, nil, fmt.Errorf("sandbox: start launcher: %w", err)
	}
	h := &launcherProc{ctl: pair[0], grants: grantsOf(pol), cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(h.done)
	}()
	// The helper's first frame says whether the sandbox is in place. Its
	// death closes the socket, so the read cannot hang on a dead helper;
	// a helper stuck while setting up is killed after the timeout.
	stuck := time.AfterFunc(launcherStartTimeout, func() { _ = cmd.Process.Kill() })
	var ready launchReply
	_, err = readFrame(h.ctl, &ready)
	stuck.Stop()
	if err == nil && ready.Error != "" {
		err = errors.New(ready.Error)
	}
	if err != nil {
		h.close()
		if errors.Is(err, errPeerGone) {
			err = fmt.Errorf("helper exited: %s", cmd.ProcessState)
		}
		return nil, nil, fmt.Errorf("sandbox: launcher: %w", err)
	}
	return h, rep, nil
}

// start sends one request and returns the started process.
func (h *launcherProc) start(req *launchRequest, fds []int) (*os.Process, error) {
	since := uptimeTicks()
	if err := writeFrame(h.ctl, req, fds); err != nil {
		return nil, fmt.Errorf("sandbox launcher: %w", err)
	}
	var rep launchReply
	got, err := readFrame(h.ctl, &rep)
	if err != nil {
		return nil, fmt.Errorf("sandbox launcher: %w", err)
	}
	defer closeFDs(got)
	if err := rep.err(); err != nil {
		reapFailedStart(since)
		return nil, fmt.Errorf("sandbox launcher: %w", err)
	}
	if len(got) != 1 {
		return nil, fmt.Errorf("sandbox launcher: reply carried %d descriptors, want 1", len(got))
	}
	pid, err := pidfdPID(got[0])
	if err != nil {
		return nil, fmt.Errorf("sandbox launcher: %w", err)
	}
	// The process is our child and unreaped, so its PID cannot have been
	// reused: FindProcess names exactly it.
	return os.FindProcess(pid)
}

// alive reports whether any process lives in the commands' pid
// namespace: one that outlived its command may have written what the
// host finds in the workspace since the last check.
func (h *launcherProc) alive(since int64) (bool, error) {
	if err := writeFrame(h.ctl, &launchRequest{Alive: true, Since: since}, nil); err != nil {
		return true, fmt.Errorf("sandbox launcher: %w", err)
	}
	var rep launchReply
	got, err := readFrame(h.ctl, &rep)
	closeFDs(got)
	if err != nil {
		return true, fmt.Errorf("sandbox launcher: %w", err)
	}
	if err := rep.err(); err != nil {
		return true, err
	}
	return rep.Alive > 0 || rep.ExitedSince, nil
}

// dead reports whether the helper has exited.
func (h *launcherProc) dead() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// close closes the control socket, which makes the helper exit (and with
// it the init and everything in the pid namespace), and waits for it; a
// helper that does not exit in time is killed.
func (h *launcherProc) close() {
	unix.Close(h.ctl)
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
	}
}

// pidfdPID returns the PID, in this process's pid namespace, of the
// process a pidfd refers to.
func pidfdPID(pidfd int) (int, error) {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(pidfd))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || pid <= 0 {
				return 0, fmt.Errorf("pidfd %d: unusable Pid %q", pidfd, v)
			}
			return pid, nil
		}
	}
	return 0, fmt.Errorf("pidfd %d: no Pid in fdinfo", pidfd)
}

// launchFiles are the descriptors of one request; opened are those Start
// opened itself (the null device) and must close.
type launchFiles struct {
	fds    []int
	opened []int
}

// launchRequestFor turns a prepared command into a request.
func launchRequestFor(cmd *exec.Cmd) (*launchRequest, *launchFiles, error) {
	if cmd == nil || cmd.Process != nil {
		return nil, nil, errors.New("sandbox: Start needs a prepared, unstarted command")
	}
	if cmd.Err != nil {
		return nil, nil, cmd.Err
	}
	req := &launchRequest{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir}
	if sp := cmd.SysProcAttr; sp != nil {
		if sp.Cloneflags != 0 || sp.Credential != nil || sp.Chroot != "" || len(sp.AmbientCaps) > 0 || sp.Setctty || sp.Foreground {
			return nil, nil, errors.New("sandbox: a launched command's SysProcAttr may only ask for Setsid or Setpgid")
		}
		req.Setpgid = sp.Setpgid && !sp.Setsid
	}
	if len(req.Args) == 0 {
		req.Args = []string{cmd.Path}
	}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	files := &launchFiles{}
	std := []any{cmd.Stdin, cmd.Stdout, cmd.Stderr}
	for i, s := range std {
		switch f := s.(type) {
		case nil:
			flag := unix.O_WRONLY
			if i == 0 {
				flag = unix.O_RDONLY
			}
			fd, err := unix.Open(os.DevNull, flag|unix.O_CLOEXEC, 0)
			if err != nil {
				closeFDs(files.opened)
				return nil, nil, err
			}
			files.opened = append(files.opened, fd)
			files.fds = append(files.fds, fd)
		case *os.File:
			files.fds = append(files.fds, int(f.Fd()))
		default:
			closeFDs(files.opened)
			return nil, nil, fmt.Errorf("sandbox: a launched command's standard stream %d must be an *os.File or nil, not %T", i, s)
		}
	}
	for _, f := range cmd.ExtraFiles {
		if f == nil {
			closeFDs(files.opened)
			return nil, nil, errors.New("sandbox: a launched command cannot have nil ExtraFiles")
		}
		files.fds = append(files.fds, int(f.Fd()))
	}
	if len(files.fds) > maxFrameFDs {
		closeFDs(files.opened)
		return nil, nil, fmt.Errorf("sandbox: %d descriptors, at most %d", len(files.fds), maxFrameFDs)
	}
	return req, files, nil
}
