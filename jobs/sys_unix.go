//go:build unix

package jobs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/safefs"
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

// lockFile takes an exclusive flock(2) on f, waiting for it; tryLockFile
// does not wait. Closing f releases it.
func lockFile(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

func tryLockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// errWouldBlock is tryLockFile's error when another holds the lock.
var errWouldBlock error = unix.EWOULDBLOCK

// sameFile reports whether f is the file fi (from safefs) describes.
func sameFile(f *os.File, fi fs.FileInfo) bool {
	var a unix.Stat_t
	b, ok := fi.Sys().(*unix.Stat_t)
	return ok && unix.Fstat(int(f.Fd()), &a) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

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

// hasChild reports whether process pid has a child.
func hasChild(pid int) bool { return proc.HasChild(pid) }

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

// closeOnExec marks descriptor fd close-on-exec, if it is open.
func closeOnExec(fd int) { syscall.CloseOnExec(fd) }
