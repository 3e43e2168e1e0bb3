package jobs

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/safefs"
	"path/filepath"
	"strconv"
	"strings"
)

// supported reports whether this platform can run jobs.
const supported = true

// sessionAttr starts a process in a new session (and so a new process
// group, without a controlling terminal).
func sessionAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// killPID is kill(2): a negative pid names a process group.
func killPID(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// Why openStdinFIFO failed.
var (
	errNoReader = errors.New("jobs: nobody reads the stdin FIFO")
	errNotFIFO  = errors.New("jobs: the stdin path is not a FIFO")
)

// openStdinFIFO opens a job's stdin FIFO for writing, without blocking
// (errNoReader when its supervisor is gone) and without following a
// symlink, and takes an exclusive lock on it so that writers from
// different processes do not interleave their frames.
func openStdinFIFO(path string) (*os.File, error) {
	d, err := openJobDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	f, err := d.OpenFIFO(filepath.Base(path), os.O_WRONLY)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return nil, errNoReader
		}
		if errors.Is(err, safefs.ErrUnsafe) {
			return nil, errNotFIFO
		}
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lockFIFO and unlockFIFO take and release the lock openStdinFIFO takes.
func lockFIFO(f *os.File) error   { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }
func unlockFIFO(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// punchHole frees length bytes at off without changing the file's size.
func punchHole(f *os.File, off, length int64) error {
	return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, length)
}

// exitStatus turns a wait status into an exit code (128+N for signal N)
// and the signal's name.
func exitStatus(state *os.ProcessState) (int, string) { return proc.ExitStatus(state) }

// reapChild reaps child pid if it has exited, without blocking.
func reapChild(pid int) bool {
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		// ECHILD: someone else reaped it; it is gone either way.
		return got == pid || errors.Is(err, unix.ECHILD)
	}
}

// alive reports whether process pid is running and is the one that
// started at ticks (not a zombie, not a newer process with a reused PID).
func alive(pid int, ticks uint64) bool {
	if pid <= 1 {
		return false
	}
	info, err := proc.Stat(pid)
	return err == nil && info.StartTicks == ticks && info.State != 'Z' && info.State != 'X'
}

// pinned is a process held by a pidfd, so that signals reach it and no
// later process that reuses its PID.
type pinned struct {
	fd  int
	pid int
}

// pin opens a pidfd for pid and checks, once it is held, that pid is the
// process that started at ticks (and, when pgid > 0, still leads group
// pgid). It returns nil when the process is gone or is another one.
func pin(pid int, ticks uint64, pgid int) *pinned {
	if pid <= 1 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	info, err := proc.Stat(pid)
	if err != nil || info.StartTicks != ticks || info.State == 'Z' || info.State == 'X' || (pgid > 0 && info.PGID != pgid) {
		unix.Close(fd)
		return nil
	}
	return &pinned{fd: fd, pid: pid}
}

func (p *pinned) signal(sig syscall.Signal) error {
	err := unix.PidfdSendSignal(p.fd, sig, nil, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	return err
}

// waitExit waits up to d for the process to exit and reports whether it did.
func (p *pinned) waitExit(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		ms := max(0, int(time.Until(deadline)/time.Millisecond))
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return false
		case n > 0:
			return true
		case ms == 0 || !time.Now().Before(deadline):
			return false
		}
	}
}

// exited reports whether the process has exited, without waiting.
func (p *pinned) exited() bool {
	fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

func (p *pinned) close() { unix.Close(p.fd) }

// hasChild reports whether process pid's main thread has a child.
func hasChild(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	return err == nil && len(strings.TrimSpace(string(data))) > 0
}

// ownedPrivate refuses a file or directory that is not the current user's
// or whose mode has any of the bits in deny.
func ownedPrivate(fi os.FileInfo, deny os.FileMode) error {
	var uid uint32
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		uid = st.Uid
	case *syscall.Stat_t:
		uid = st.Uid
	default:
		return errors.New("no owner information")
	}
	if uid != uint32(os.Geteuid()) {
		return errors.New("owned by uid " + strconv.Itoa(int(uid)) + ", not " + strconv.Itoa(os.Geteuid()))
	}
	if fi.Mode().Perm()&deny != 0 {
		return errors.New("its mode " + fi.Mode().Perm().String() + " lets its group or others in; it must not")
	}
	return nil
}

// writableDir reports whether this process may create files in dir.
func writableDir(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }
