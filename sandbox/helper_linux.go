package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// helperFailed is the helper's exit status when it could not set up the
// sandbox; the command did not run.
const helperFailed = 125

// helperMain runs in the re-executed helper, on the main thread (package
// init), and never returns unless setting up the sandbox failed.
func helperMain() int {
	runtime.LockOSThread()
	// A signal that arrives while the sandbox is being built must not be
	// lost: as PID 1 of its namespace the helper would drop it. See
	// runAsInit.
	early := make(chan os.Signal, 1)
	signal.Notify(early, stopSignals...)
	err := runHelper(early)
	fmt.Fprintf(os.Stderr, "shellcap sandbox: %v\n", err)
	return helperFailed
}

// runHelper applies the policy on the locked thread, in order, and execs
// the command. Each step fails closed.
func runHelper(early chan os.Signal) error {
	p, err := readPolicy(os.NewFile(3, "policy"))
	if err != nil {
		return err
	}
	if p.Mounts {
		if err := setupMounts(p); err != nil {
			return err
		}
	}
	if p.Network == NetworkAllowlist {
		vars, err := startAllowlist(os.NewFile(controlFD, "control"))
		if err != nil {
			return err
		}
		p.Env = setEnv(p.Env, vars...)
	}
	if err := applyLayers(p); err != nil {
		return err
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close descriptors: %w", err)
	}
	if p.Mounts {
		return runAsInit(p, early)
	}
	err = unix.Exec(p.Path, p.Args, p.Env)
	return fmt.Errorf("exec %s: %w", p.Path, err)
}

// applyLayers applies, to the calling thread and in order, the layers
// after the mounts: working directory, rlimits, capability drop,
// no_new_privs, Landlock and seccomp. Each step fails closed.
func applyLayers(p *policy) error {
	if err := unix.Chdir(p.Dir); err != nil {
		return fmt.Errorf("chdir %s: %w", p.Dir, err)
	}
	if err := applyProcessLimit(p); err != nil {
		return err
	}
	for _, r := range p.Rlimits {
		if err := unix.Setrlimit(r.Resource, &unix.Rlimit{Cur: r.Soft, Max: r.Hard}); err != nil {
			return fmt.Errorf("rlimit %d: %w", r.Resource, err)
		}
	}
	if p.DropCaps {
		if err := dropCapabilities(); err != nil {
			return err
		}
	}
	if p.Profile != FullAccess {
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return fmt.Errorf("no_new_privs: %w", err)
		}
	}
	if p.LandlockABI > 0 {
		if err := applyLandlock(p); err != nil {
			return err
		}
	}
	if p.Seccomp {
		if err := applySeccomp(p.Network); err != nil {
			return err
		}
	}
	return nil
}

// stopSignals are the signals a caller uses to stop a command; the helper
// catches them until the command runs.
var stopSignals = []os.Signal{unix.SIGTERM, unix.SIGINT, unix.SIGHUP, unix.SIGQUIT}

// runAsInit starts the command as a child and stays PID 1 of the new pid
// namespace: it reaps orphans and, when the command exits, exits with the
// command's status (128+N for a signal), which ends everything left in the
// namespace. Were the command itself PID 1, the kernel would drop every
// signal it has no handler for, even from outside: a SIGTERM to the
// process group would not stop a shell. So the command is the helper's
// child in the helper's process group, where group signals reach it. The
// helper ignores signals sent to it alone (signal the group, as shellcap
// does; SIGKILL to the helper kills the whole namespace). A stop signal
// that came before the command started ends the helper without starting
// it, or is passed on when it raced with the fork.
func runAsInit(p *policy, early chan os.Signal) error {
	select {
	case sig := <-early:
		exitNow(128 + int(sig.(unix.Signal)))
	default:
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("not dumpable: %w", err)
	}
	pid, err := syscall.ForkExec(p.Path, p.Args, &syscall.ProcAttr{Env: p.Env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		return fmt.Errorf("exec %s: %w", p.Path, err)
	}
	signal.Ignore(ignoredByInit...)
	select {
	case sig := <-early:
		_ = unix.Kill(pid, sig.(unix.Signal))
	default:
	}
	for _, fd := range []int{0, 1, 2} {
		unix.Close(fd) // the command's streams: the helper holds no pipe open
	}
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			exitNow(helperFailed)
		}
		if got != pid {
			continue // an orphan
		}
		if ws.Signaled() {
			exitNow(128 + int(ws.Signal()))
		}
		exitNow(ws.ExitStatus())
	}
}

// dropCapabilities empties the bounding set (when the thread may), the
// ambient set and the permitted, effective and inheritable sets, so the
// command has no capability even as uid 0 of its user namespace.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		for c := 0; c <= 63; c++ {
			err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
			if errors.Is(err, unix.EINVAL) {
				break
			}
			if err != nil {
				return fmt.Errorf("drop bounding capability %d: %w", c, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// exitNow ends a helper process at once with code. Helpers hold nothing to
// flush, and skipping the runtime's exit path matters in race-detector
// builds (tests), whose exit otherwise waits a second for late reports.
func exitNow(code int) {
	unix.Exit(code)
}
