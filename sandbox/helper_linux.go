package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// helperFailed is the helper's exit status when it could not set up the
// sandbox; the command did not run.
const helperFailed = 125

// helperMain runs in the re-executed helper, on the main thread (package
// init), and never returns unless setting up the sandbox failed.
func helperMain() int {
	runtime.LockOSThread()
	err := runHelper()
	fmt.Fprintf(os.Stderr, "shellcap sandbox: %v\n", err)
	return helperFailed
}

// runHelper applies the policy on the locked thread, in order, and execs
// the command. Each step fails closed.
func runHelper() error {
	f := os.NewFile(3, "policy")
	if f == nil {
		return errors.New("no policy descriptor")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxPolicy+1))
	f.Close()
	if err != nil {
		return fmt.Errorf("read policy: %w", err)
	}
	var p policy
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("decode policy: %w", err)
	}
	if p.Mounts {
		if err := setupMounts(&p); err != nil {
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
	if err := unix.Chdir(p.Dir); err != nil {
		return fmt.Errorf("chdir %s: %w", p.Dir, err)
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
		if err := applyLandlock(&p); err != nil {
			return err
		}
	}
	if p.Seccomp {
		if err := applySeccomp(p.Network); err != nil {
			return err
		}
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fmt.Errorf("close descriptors: %w", err)
	}
	err = unix.Exec(p.Path, p.Args, p.Env)
	return fmt.Errorf("exec %s: %w", p.Path, err)
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
