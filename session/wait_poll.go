//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// waiter waits for a shell's pipes to become readable, with poll(2).
type waiter struct {
	fds [waitFDs]int
}

// waitFDs is the number of descriptors a waiter watches: status, stdout,
// stderr and the wake pipe, in that order.
const waitFDs = 4

func newWaiter(fds [waitFDs]int) (*waiter, error) { return &waiter{fds: fds}, nil }

// wait blocks until a descriptor not marked eof is readable (or hung up)
// or deadline passes (zero: no deadline), and reports which are ready.
// timedOut is true when the deadline passed first.
func (w *waiter) wait(deadline time.Time, eof [waitFDs]bool) (ready [waitFDs]bool, timedOut bool, err error) {
	timeout := -1
	if !deadline.IsZero() {
		left := time.Until(deadline)
		if left <= 0 {
			return ready, true, nil
		}
		timeout = int((left + time.Millisecond - 1) / time.Millisecond)
	}
	var pfds [waitFDs]unix.PollFd
	for i, fd := range w.fds {
		pfds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		if eof[i] {
			pfds[i].Fd = -1
		}
	}
	n, err := unix.Poll(pfds[:], timeout)
	if errors.Is(err, unix.EINTR) {
		return ready, false, nil
	}
	if err != nil {
		return ready, false, err
	}
	if n == 0 {
		return ready, true, nil
	}
	for i := range pfds {
		ready[i] = pfds[i].Revents != 0
	}
	return ready, false, nil
}

// close does nothing: the waiter holds no descriptor of its own.
func (w *waiter) close() {}
