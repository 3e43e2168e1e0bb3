package session

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// fionread asks how many bytes a pipe holds.
const fionread = unix.TIOCINQ

// pipe2 creates a close-on-exec pipe with extra flags.
func pipe2(p []int, flags int) error { return unix.Pipe2(p, unix.O_CLOEXEC|flags) }

// maxCommandFile is the size of the command file: the longest command
// (plus its NUL) a Session takes through it.
const maxCommandFile = 4 << 20

// newCommandFile returns the command file the shell reads long commands
// from (its descriptor 4, sharing the offset): a memfd, not a host file,
// sized once and sealed against growing and shrinking. bash keeps a copy
// of the descriptor while a command runs, and the command can write into
// it; it can never reach a host file through it, nor make it hold more
// than maxCommandFile bytes of memory (the pages are allocated only as
// written).
func newCommandFile(string) (*os.File, error) {
	fd, err := unix.MemfdCreate("shellcap-session-command", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("session: command file: %w", err)
	}
	if err := unix.Ftruncate(fd, maxCommandFile); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("session: command file: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("session: seal the command file: %w", err)
	}
	return os.NewFile(uintptr(fd), "session-command"), nil
}
