package session

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// waiter waits for a shell's pipes to become readable. On Linux it is an
// epoll instance registered with Go's network poller, so that a Session
// waiting for a step parks its goroutine as a pipe read does, instead of
// holding a thread in poll(2): measured against a raw bash reading a pipe
// (BenchmarkSessionRoundTrip), a blocking poll(2) per wait cost more than
// everything else the protocol adds.
type waiter struct {
	ep   *os.File
	raw  syscall.RawConn
	fds  [waitFDs]int
	gone [waitFDs]bool // removed from the set (end of file)
	evs  [waitFDs]unix.EpollEvent
}

// waitFDs is the number of descriptors a waiter watches: status, stdout,
// stderr and the wake pipe, in that order.
const waitFDs = 4

func newWaiter(fds [waitFDs]int) (*waiter, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	for _, fd := range fds {
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			_ = unix.Close(ep)
			return nil, err
		}
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		_ = unix.Close(ep)
		return nil, err
	}
	f := os.NewFile(uintptr(ep), "session-wait")
	raw, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &waiter{ep: f, raw: raw, fds: fds}, nil
}

// wait blocks until a descriptor not marked eof is readable (or hung up)
// or deadline passes (zero: no deadline), and reports which are ready.
// timedOut is true when the deadline passed first.
func (w *waiter) wait(deadline time.Time, eof [waitFDs]bool) (ready [waitFDs]bool, timedOut bool, err error) {
	for i, done := range eof {
		if done && !w.gone[i] {
			// A pipe at end of file stays readable: stop watching it.
			w.gone[i] = true
			_ = w.raw.Control(func(ep uintptr) {
				_ = unix.EpollCtl(int(ep), unix.EPOLL_CTL_DEL, w.fds[i], nil)
			})
		}
	}
	if err := w.ep.SetReadDeadline(deadline); err != nil {
		return ready, false, err
	}
	var n int
	var werr error
	rerr := w.raw.Read(func(ep uintptr) bool {
		n, werr = unix.EpollWait(int(ep), w.evs[:], 0)
		if errors.Is(werr, unix.EINTR) {
			n, werr = 0, nil
		}
		return n > 0 || werr != nil
	})
	if errors.Is(rerr, os.ErrDeadlineExceeded) {
		return ready, true, nil
	}
	if rerr != nil {
		return ready, false, rerr
	}
	if werr != nil {
		return ready, false, werr
	}
	for _, ev := range w.evs[:n] {
		for i, fd := range w.fds {
			if int32(fd) == ev.Fd {
				ready[i] = true
			}
		}
	}
	return ready, false, nil
}

// close releases the epoll instance (not the descriptors it watched).
func (w *waiter) close() { _ = w.ep.Close() }
