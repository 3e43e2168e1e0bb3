//go:build freebsd || netbsd || openbsd || dragonfly

package session

import "golang.org/x/sys/unix"

// fionread asks how many bytes a pipe holds (FIONREAD, _IOR('f', 127, int)).
const fionread = 0x4004667f

// pipe2 creates a close-on-exec pipe with extra flags.
func pipe2(p []int, flags int) error { return unix.Pipe2(p, unix.O_CLOEXEC|flags) }
