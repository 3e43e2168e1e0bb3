package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// The launcher side: a helper that builds the sandbox once and then starts
// commands in it on request.
//
// Its order differs from the one-shot helper's in one place: the launcher
// itself stays outside the pid namespace its commands share (it unshares
// the namespace for its children only) so that it can fork each command
// with CLONE_PARENT, making the command a child of the host. The first
// process in that namespace is a small init, forked before Landlock, which
// mounts the namespace's /proc, reaps orphans and exits, taking every
// process in the namespace with it, when the launcher goes away.

const (
	launcherEntry = "sandbox-launcher"
	initEntry     = "sandbox-init"
)

func init() {
	reexec.Register(launcherEntry, launcherMain)
	reexec.Register(initEntry, initMain)
}

// Descriptors of the launcher: the policy pipe, the control socket and,
// with the network allowlist, the socket the proxy listener is handed over.
const (
	launcherPolicyFD = 3
	launcherCtlFD    = 4
	launcherProxyFD  = 5
)

// Descriptors of the init: where it reports readiness, and a pipe whose
// other end the launcher holds open for as long as it lives.
const (
	initReadyFD    = 3
	initLifelineFD = 4
	// initExitFD gets a byte for every process init reaps: one that
	// outlived its command, which may have written to the workspace
	// after the host's last check.
	initExitFD = 5
)

// initExits is the launcher's end of the init's exit pipe (-1 before
// there is one), and lastOrphanExit when (CLOCK_MONOTONIC, ns) the
// launcher last found a byte in it.
var (
	initExits      = -1
	lastOrphanExit atomic.Int64
)

// orphanExitedSince reports whether init has reaped, or is about to
// reap, a process since the monotonic time since.
func orphanExitedSince(since int64) bool {
	if initExits < 0 {
		return true
	}
	b := make([]byte, 4096)
	for {
		n, err := unix.Read(initExits, b)
		if n > 0 {
			lastOrphanExit.Store(monotonic())
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		break
	}
	return lastOrphanExit.Load() >= since
}

// launchRequest asks the launcher to start a command. Descriptors 0, 1, 2
// and any further ones of the command travel with the frame, in order.
type launchRequest struct {
	Path    string   `json:"path"`
	Args    []string `json:"args"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	Setpgid bool     `json:"setpgid,omitempty"`
	// Protect are paths to protect before the command starts (what the
	// host found in the workspace since the last request).
	Protect []protectEntry `json:"protect,omitempty"`
	// Alive asks, instead of a start, how many processes live in the
	// commands' pid namespace, and whether one ended after Since (a
	// CLOCK_MONOTONIC time in nanoseconds).
	Alive bool  `json:"alive,omitempty"`
	Since int64 `json:"since,omitempty"`
	// ProtectOnly asks to protect without starting anything (before a
	// step of a shell that is already running).
	ProtectOnly bool `json:"protect_only,omitempty"`
}

// protectEntry is a metaPath on the wire.
type protectEntry struct {
	Path string   `json:"path"`
	Kind metaKind `json:"kind"`
}

// launchReply answers a request: the command's pidfd travels with it, or
// Error says why there is none. The launcher's first frame is a reply too:
// empty Error when the sandbox is in place.
type launchReply struct {
	Error string `json:"error,omitempty"`
	// Op, Path and Errno describe an error of the operating system, so
	// that the host can rebuild it as an *os.PathError (a vanished working
	// directory, an environment over the kernel's limit).
	Op    string `json:"op,omitempty"`
	Path  string `json:"path,omitempty"`
	Errno int    `json:"errno,omitempty"`
	// Alive and ExitedSince answer an Alive request.
	Alive       int  `json:"alive,omitempty"`
	ExitedSince bool `json:"exited_since,omitempty"`
}

// replyTo describes err for the host.
func replyTo(err error) launchReply {
	rep := launchReply{Error: err.Error()}
	var pe *os.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(err, &errno) {
		rep.Op, rep.Path, rep.Errno = pe.Op, pe.Path, int(errno)
	}
	return rep
}

// err rebuilds the error a reply describes, nil when there is none.
func (r *launchReply) err() error {
	switch {
	case r.Error == "":
		return nil
	case r.Errno != 0:
		return &os.PathError{Op: r.Op, Path: r.Path, Err: syscall.Errno(r.Errno)}
	default:
		return errors.New(r.Error)
	}
}

func launcherMain() int {
	runtime.LockOSThread()
	err := runLauncher()
	if err != nil {
		_ = writeFrame(launcherCtlFD, launchReply{Error: err.Error()}, nil)
		fmt.Fprintf(os.Stderr, "shellcap sandbox launcher: %v\n", err)
		exitNow(helperFailed)
	}
	exitNow(0)
	return 0
}

// runLauncher sets the sandbox up on the locked thread, says it is ready
// and serves requests until the host closes the socket.
func runLauncher() error {
	p, err := readPolicy(os.NewFile(launcherPolicyFD, "policy"))
	if err != nil {
		return err
	}
	var proxyEnv []string
	if p.Mounts {
		p.ProcByInit = true
		if err := setupMounts(p); err != nil {
			return err
		}
		if p.Network == NetworkAllowlist {
			if proxyEnv, err = startAllowlist(os.NewFile(launcherProxyFD, "proxy-control")); err != nil {
				return err
			}
		}
		if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
			return fmt.Errorf("new pid namespace: %w", err)
		}
		if err := startInit(); err != nil {
			return err
		}
	}
	if err := confineSelf(p); err != nil {
		return err
	}
	if err := writeFrame(launcherCtlFD, launchReply{}, nil); err != nil {
		return nil // the host is gone
	}
	for {
		var req launchRequest
		fds, err := readFrame(launcherCtlFD, &req)
		if err != nil {
			return nil // the host closed the socket or sent garbage: stop
		}
		if req.Alive {
			closeFDs(fds)
			n, err := aliveInNamespace()
			rep := launchReply{Alive: n, ExitedSince: orphanExitedSince(req.Since)}
			if err != nil {
				rep = replyTo(err)
			}
			if writeFrame(launcherCtlFD, rep, nil) != nil {
				return nil
			}
			continue
		}
		if req.ProtectOnly {
			closeFDs(fds)
			rep := launchReply{}
			if err := protectBeforeLaunch(req.Protect); err != nil {
				rep = replyTo(err)
			}
			if writeFrame(launcherCtlFD, rep, nil) != nil {
				return nil
			}
			continue
		}
		req.Env = setEnv(req.Env, proxyEnv...)
		err = protectBeforeLaunch(req.Protect)
		pidfd := -1
		if err == nil {
			pidfd, err = launch(&req, fds)
		}
		closeFDs(fds)
		rep := launchReply{}
		var out []int
		if err != nil {
			rep = replyTo(err)
		} else {
			out = []int{pidfd}
		}
		err = writeFrame(launcherCtlFD, rep, out)
		closeFDs(out)
		if err != nil {
			return nil
		}
	}
}

// readPolicy decodes the policy from its pipe and closes it.
func readPolicy(f *os.File) (*policy, error) {
	if f == nil {
		return nil, errors.New("no policy descriptor")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPolicy+1))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	var p policy
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("decode policy: %w", err)
	}
	return &p, nil
}

// confineSelf applies the layers after the mounts to the calling thread,
// which every command is forked from (see applyLayers). The launcher also
// becomes undumpable first, so nothing can open its memory or descriptors
// through /proc, and afterwards every descriptor but the control socket is
// marked close-on-exec.
func confineSelf(p *policy) error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("not dumpable: %w", err)
	}
	if err := applyLayers(p); err != nil {
		return err
	}
	if err := unix.CloseRange(launcherCtlFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close descriptors: %w", err)
	}
	if err := unix.CloseRange(0, launcherCtlFD, unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close descriptors: %w", err)
	}
	return nil
}

// startInit forks the init of the new pid namespace and waits until it has
// mounted /proc. The lifeline's write end stays open in the launcher
// (close-on-exec, so no command holds it).
func startInit() error {
	self, err := reexec.Self()
	if err != nil {
		return err
	}
	ready, err := pipe()
	if err != nil {
		return err
	}
	defer unix.Close(ready[0])
	life, err := pipe()
	if err != nil {
		unix.Close(ready[1])
		return err
	}
	exits, err := pipe()
	if err != nil {
		closeFDs([]int{ready[1], life[0], life[1]})
		return err
	}
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		closeFDs([]int{ready[1], life[0], life[1], exits[0], exits[1]})
		return err
	}
	_, err = syscall.ForkExec(self, []string{"shellcap-sandbox-init", reexec.Marker, initEntry}, &syscall.ProcAttr{
		Dir:   "/",
		Env:   []string{},
		Files: []uintptr{uintptr(null), uintptr(null), 2, uintptr(ready[1]), uintptr(life[0]), uintptr(exits[1])},
	})
	closeFDs([]int{null, ready[1], life[0], exits[1]})
	if err != nil {
		unix.Close(life[1])
		unix.Close(exits[0])
		return fmt.Errorf("start init: %w", err)
	}
	if err := unix.SetNonblock(exits[0], true); err != nil {
		unix.Close(life[1])
		unix.Close(exits[0])
		return err
	}
	initExits = exits[0]
	msg := make([]byte, 512)
	n, _ := unix.Read(ready[0], msg)
	if n == 0 || string(msg[:n]) != "ok" {
		unix.Close(life[1])
		if n == 0 {
			return errors.New("init of the pid namespace exited")
		}
		return fmt.Errorf("init of the pid namespace: %s", msg[:n])
	}
	return nil // life[1] stays open for the launcher's lifetime
}

func pipe() ([2]int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return p, fmt.Errorf("pipe: %w", err)
	}
	return p, nil
}

// launch forks one command from the confined thread with CLONE_PARENT, so
// that it is the host's child, in a new session (or process group), with
// fds as its descriptors 0, 1, 2, ..., and returns its pidfd.
func launch(req *launchRequest, fds []int) (int, error) {
	if len(fds) < 3 {
		return -1, errors.New("a command needs descriptors 0, 1 and 2")
	}
	// A failed exec after the fork would leave the host a zombie it
	// cannot name: check what can be checked first.
	if err := unix.Access(req.Path, unix.X_OK); err != nil {
		return -1, &os.PathError{Op: "fork/exec", Path: req.Path, Err: err}
	}
	if req.Dir != "" {
		fd, err := unix.Open(req.Dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, &os.PathError{Op: "chdir", Path: req.Dir, Err: err}
		}
		unix.Close(fd)
	}
	files := make([]uintptr, len(fds))
	for i, fd := range fds {
		files[i] = uintptr(fd)
	}
	pidfd := -1
	_, err := syscall.ForkExec(req.Path, req.Args, &syscall.ProcAttr{
		Dir:   req.Dir,
		Env:   req.Env,
		Files: files,
		Sys: &syscall.SysProcAttr{
			Setsid:     !req.Setpgid,
			Setpgid:    req.Setpgid,
			Cloneflags: unix.CLONE_PARENT,
			PidFD:      &pidfd,
		},
	})
	if err != nil {
		return -1, &os.PathError{Op: "fork/exec", Path: req.Path, Err: err}
	}
	if pidfd < 0 {
		return -1, errors.New("no pidfd for the command")
	}
	return pidfd, nil
}

// initMain is PID 1 of a launcher's pid namespace: it mounts the
// namespace's /proc, gives up its capabilities, ignores every signal it
// can, reaps orphans, and exits when the launcher's lifeline closes. The
// kernel then kills every process left in the namespace.
func initMain() int {
	runtime.LockOSThread()
	ready := os.NewFile(initReadyFD, "ready")
	err := mountProc()
	if err == nil {
		err = dropCapabilities()
	}
	if err == nil {
		err = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	}
	if err != nil {
		fmt.Fprint(ready, err.Error())
		exitNow(helperFailed)
	}
	signal.Ignore(ignoredByInit...)
	_ = unix.SetNonblock(initExitFD, true)
	children := make(chan os.Signal, 1)
	signal.Notify(children, unix.SIGCHLD)
	go func() {
		for range children {
			for {
				var ws unix.WaitStatus
				// Told before the reap, so that a process gone from
				// /proc has always been told of (full: already told).
				_, _ = unix.Write(initExitFD, []byte{1})
				pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}()
	fmt.Fprint(ready, "ok")
	ready.Close()
	life := os.NewFile(initLifelineFD, "lifeline")
	_, _ = io.Copy(io.Discard, life)
	exitNow(0)
	return 0
}

// ignoredByInit are the signals init ignores; as PID 1 of its namespace it
// never gets SIGKILL or SIGSTOP from inside it.
var ignoredByInit = []os.Signal{
	unix.SIGHUP, unix.SIGINT, unix.SIGQUIT, unix.SIGTERM, unix.SIGUSR1, unix.SIGUSR2,
	unix.SIGPIPE, unix.SIGALRM, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU, unix.SIGVTALRM,
	unix.SIGPROF, unix.SIGWINCH, unix.SIGIO, unix.SIGPWR, unix.SIGXCPU, unix.SIGXFSZ,
	unix.SIGSTKFLT, unix.SIGTRAP, unix.SIGABRT, unix.SIGSYS,
}
