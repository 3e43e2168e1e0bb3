package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The launcher and its host talk over a unix stream socket in frames: a
// 4-byte big-endian length, then that many bytes of JSON. Descriptors ride
// along with the first bytes of a frame (SCM_RIGHTS). Both sides use plain
// blocking system calls: the launcher serves on one locked thread, the host
// holds a mutex around each request and its reply.

const (
	// maxFrame bounds a frame: a command's argv and environment are at
	// most a few MiB (the kernel's own limit on exec).
	maxFrame = 16 << 20
	// maxFrameFDs bounds the descriptors one frame may carry.
	maxFrameFDs = 64
)

// errPeerGone reports that the other end closed the socket.
var errPeerGone = errors.New("sandbox launcher: connection closed")

// writeFrame sends v as one frame with fds attached.
func writeFrame(sock int, v any, fds []int) error {
	payload, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(payload) > maxFrame {
		return fmt.Errorf("sandbox launcher: request is %d bytes, more than %d", len(payload), maxFrame)
	}
	buf := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(len(payload)))
	copy(buf[4:], payload)
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	n, err := sendmsg(sock, buf, oob)
	if err != nil {
		return err
	}
	for n < len(buf) {
		m, err := unix.Write(sock, buf[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		n += m
	}
	return nil
}

func sendmsg(sock int, buf, oob []byte) (int, error) {
	for {
		n, err := unix.SendmsgN(sock, buf, oob, nil, unix.MSG_NOSIGNAL)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EPIPE) || errors.Is(err, unix.ECONNRESET) {
			return n, errPeerGone
		}
		return n, err
	}
}

// readFrame reads one frame into v and returns the descriptors that came
// with it, close-on-exec. On error no descriptor is left open.
func readFrame(sock int, v any) ([]int, error) {
	hdr := make([]byte, 4)
	oob := make([]byte, unix.CmsgSpace(maxFrameFDs*4))
	var n, oobn, flags int
	var err error
	for {
		n, oobn, flags, _, err = unix.Recvmsg(sock, hdr, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.ECONNRESET) || (err == nil && n == 0) {
		return nil, errPeerGone
	}
	if err != nil {
		return nil, err
	}
	fds, err := parseRights(oob[:oobn])
	if err == nil && flags&unix.MSG_CTRUNC != 0 {
		err = fmt.Errorf("sandbox launcher: more than %d descriptors in one frame", maxFrameFDs)
	}
	if err == nil {
		err = readFull(sock, hdr[n:])
	}
	var payload []byte
	if err == nil {
		size := binary.BigEndian.Uint32(hdr)
		if size > maxFrame {
			err = fmt.Errorf("sandbox launcher: frame of %d bytes, more than %d", size, maxFrame)
		} else {
			payload = make([]byte, size)
			err = readFull(sock, payload)
		}
	}
	if err == nil {
		err = json.Unmarshal(payload, v)
	}
	if err != nil {
		closeFDs(fds)
		return nil, err
	}
	return fds, nil
}

func parseRights(oob []byte) ([]int, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range msgs {
		got, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			closeFDs(fds)
			return nil, err
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

func readFull(sock int, p []byte) error {
	for len(p) > 0 {
		n, err := unix.Read(sock, p)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.ECONNRESET) || (err == nil && n == 0) {
			return errPeerGone
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
