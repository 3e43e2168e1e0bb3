package session

import "golang.org/x/sys/unix"

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
