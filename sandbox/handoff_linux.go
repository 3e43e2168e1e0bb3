package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// The handoff is one SOCK_SEQPACKET message from the helper, inside the
// sandbox, to Wrap's process over a socketpair: the proxy port as two
// big-endian bytes, with two descriptors, the proxy's listening socket
// (bound in the sandbox's network namespace) and a pidfd of the sandbox's
// PID 1.

// controlFD is the helper's descriptor for its end of the socketpair, next
// to the policy pipe on 3.
const controlFD = 4

// errNoHandoff reports that the helper closed the control socket without
// sending: it failed, or the command was never started.
var errNoHandoff = errors.New("sandbox: the helper sent no proxy listener")

// startProxy creates the control socketpair and starts a proxy for rules
// that waits on the host's end. It returns the helper's end, for
// cmd.ExtraFiles.
func startProxy(rules allowlist, limits proxyLimits) (*os.File, error) {
	host, child, err := proxySocket()
	if err != nil {
		return nil, err
	}
	p := newProxy(rules, limits)
	if proxyStarted != nil {
		proxyStarted(p)
	}
	go p.run(host)
	return child, nil
}

// proxySocket makes the control socket: the host's end, which receives the
// listener, and the helper's.
func proxySocket() (host, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	// Nonblocking, the host's end joins the runtime's poller, so the
	// receiving goroutine does not hold a thread.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: control socket: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-control"), os.NewFile(uintptr(fds[1]), "sandbox-control"), nil
}

// run receives the listener and the pidfd over ctl, serves until the
// sandbox's PID 1 has exited (its network namespace is then gone), and
// stops. When the helper closes ctl without sending, it stops at once.
func (p *proxy) run(ctl *os.File) {
	defer p.stop()
	ln, pidfd, err := receiveHandoff(ctl)
	ctl.Close()
	if err != nil {
		return
	}
	defer pidfd.Close()
	p.serve(ln)
	waitExit(pidfd)
}

// sendHandoff sends the port, the listener and the pidfd over ctl.
func sendHandoff(ctl *os.File, port uint16, listener, pidfd int) error {
	rc, err := ctl.SyscallConn()
	if err != nil {
		return err
	}
	msg := binary.BigEndian.AppendUint16(nil, port)
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), msg, unix.UnixRights(listener, pidfd), nil, 0)
		return serr != unix.EAGAIN
	}); err != nil {
		return err
	}
	return serr
}

// receiveHandoff waits for the helper's message and returns the listener
// and the pidfd, or errNoHandoff when the helper closed its end.
func receiveHandoff(ctl *os.File) (net.Listener, *os.File, error) {
	rc, err := ctl.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	buf := make([]byte, 16)
	oob := make([]byte, unix.CmsgSpace(4*4))
	var n, oobn, flags int
	var rerr error
	if err := rc.Read(func(fd uintptr) bool {
		n, oobn, flags, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN
	}); err != nil {
		return nil, nil, err
	}
	if rerr != nil {
		return nil, nil, fmt.Errorf("sandbox: receive proxy listener: %w", rerr)
	}
	fds, err := rightsOf(oob[:oobn])
	if err != nil {
		return nil, nil, err
	}
	if n == 0 && len(fds) == 0 {
		return nil, nil, errNoHandoff
	}
	if n != 2 || len(fds) != 2 || flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0 {
		closeFDs(fds)
		return nil, nil, errors.New("sandbox: malformed proxy handoff")
	}
	if port := binary.BigEndian.Uint16(buf); port != proxyPort {
		closeFDs(fds)
		return nil, nil, fmt.Errorf("sandbox: proxy handoff for port %d, want %d", port, proxyPort)
	}
	lf := os.NewFile(uintptr(fds[0]), "sandbox-proxy-listener")
	ln, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: proxy listener: %w", err)
	}
	if err := unix.SetNonblock(fds[1], true); err != nil {
		ln.Close()
		unix.Close(fds[1])
		return nil, nil, fmt.Errorf("sandbox: pidfd: %w", err)
	}
	return ln, os.NewFile(uintptr(fds[1]), "sandbox-pidfd"), nil
}

// rightsOf returns the descriptors carried in control messages.
func rightsOf(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy handoff: %w", err)
	}
	var fds []int
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			continue
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// waitExit returns once the process behind pidfd has exited (the pidfd
// reads as ready), waiting in the runtime's poller when it can.
func waitExit(pidfd *os.File) {
	exited := func(fd uintptr, timeout int) bool {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, timeout)
		return n > 0 || err != nil && err != unix.EINTR
	}
	rc, err := pidfd.SyscallConn()
	if err != nil {
		return
	}
	if rc.Read(func(fd uintptr) bool { return exited(fd, 0) }) == nil {
		return
	}
	// Not pollable by the runtime: block this goroutine's thread instead.
	rc.Control(func(fd uintptr) {
		for !exited(fd, -1) {
		}
	})
}
