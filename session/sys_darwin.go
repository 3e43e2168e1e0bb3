package session

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// fionread asks how many bytes a pipe holds (FIONREAD, _IOR('f', 127, int)).
const fionread = 0x4004667f

// pipe2 creates a close-on-exec pipe; flags may hold O_NONBLOCK. Darwin has
// no pipe2, so this is not atomic with fork: callers hold no fork lock,
// which os/exec's close-on-exec handling of ExtraFiles tolerates.
func pipe2(p []int, flags int) error {
	if err := unix.Pipe(p); err != nil {
		return err
	}
	for _, fd := range p {
		unix.CloseOnExec(fd)
		if flags&unix.O_NONBLOCK != 0 {
			_ = unix.SetNonblock(fd, true)
		}
	}
	return nil
}

// maxCommandFile is the longest command (plus its NUL) a Session takes
// through the command file.
const maxCommandFile = 4 << 20

// newCommandFile returns the command file the shell reads long commands
// from: a private file in dir (there is no sandbox on this platform).
func newCommandFile(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, "command"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}
