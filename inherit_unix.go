//go:build unix

package shellcap

import "golang.org/x/sys/unix"

// closeInheritedOnExec marks every descriptor of this process from 3 up
// close-on-exec. Go opens its own descriptors that way, but those this
// process inherited from its parent without the flag (a pipe to the program
// that started it, a socket, a file) would otherwise reach every command
// the Shell starts: os/exec does not close them in the child. New calls it,
// so a descriptor the host was handed never reaches a command; the host's
// own children through os/exec are unaffected (ExtraFiles are duplicated
// into the child whatever their flag).
func closeInheritedOnExec() error {
	if closeRangeOnExec() == nil {
		return nil
	}
	return markEachOnExec()
}

// markEachOnExec is closeInheritedOnExec one descriptor at a time.
func markEachOnExec() error {
	// Kernels without close_range(CLOSE_RANGE_CLOEXEC), and the BSDs:
	// every descriptor number the limit allows (bounded, so that a huge
	// limit costs at most a few milliseconds).
	var lim unix.Rlimit
	limit := uint64(1 << 16)
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && uint64(lim.Cur) < limit {
		limit = uint64(lim.Cur)
	}
	for fd := 3; uint64(fd) < limit; fd++ {
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err != nil || flags&unix.FD_CLOEXEC != 0 {
			continue // not open, or already close-on-exec
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC); err != nil {
			return err
		}
	}
	return nil
}
