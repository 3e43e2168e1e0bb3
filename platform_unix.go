//go:build unix

package shellcap

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// hostLimitAtMost reports whether the host's hard limit for the resource
// behind a ulimit flag is already at most v (in the kernel's unit).
func hostLimitAtMost(flag string, v uint64) bool {
	res, ok := ulimitResource[flag]
	if !ok {
		return false
	}
	var cur unix.Rlimit
	if err := unix.Getrlimit(res, &cur); err != nil {
		return false
	}
	return cur.Max != unix.RLIM_INFINITY && uint64(cur.Max) <= v
}

// setsidAttr starts a process with setsid(2), in a new kernel session, so
// it leads its own process group and has no controlling terminal.
func setsidAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// runAttr is how Run starts a command no sandbox confines: leading its own
// process group, and in a new session whenever this process has a
// controlling terminal, so that no command can open that terminal
// (/dev/tty), prompt on it or get its signals. Without a terminal to keep
// away a new session adds nothing but cost: on Linux setsid(2) also creates
// a scheduler autogroup, about a tenth of a `bash -c true`.
func runAttr() *syscall.SysProcAttr {
	if noControllingTerminal() {
		return &syscall.SysProcAttr{Setpgid: true}
	}
	return setsidAttr()
}

// noControllingTerminal reports whether this process has no controlling
// terminal: opening /dev/tty then fails with ENXIO. Any other outcome (a
// terminal, or an error that proves nothing) counts as having one. It is
// asked before every start, since a session leader can acquire a terminal
// at any time.
func noControllingTerminal() bool {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err == nil {
		_ = unix.Close(fd)
		return false
	}
	return err == unix.ENXIO
}

// readAvailable reads up to limit bytes that r, a pipe, holds now, without
// waiting for more.
func readAvailable(r *os.File, limit int) []byte {
	rc, err := r.SyscallConn()
	if err != nil {
		return nil
	}
	var data []byte
	buf := make([]byte, 4096)
	_ = rc.Read(func(fd uintptr) bool {
		for len(data) < limit {
			n, err := unix.Read(int(fd), buf[:min(len(buf), limit-len(data))])
			if n <= 0 || err != nil {
				break
			}
			data = append(data, buf[:n]...)
		}
		return true
	})
	return data
}
