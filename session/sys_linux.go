package session

import "golang.org/x/sys/unix"

// fionread asks how many bytes a pipe holds.
const fionread = unix.TIOCINQ

// pipe2 creates a close-on-exec pipe with extra flags.
func pipe2(p []int, flags int) error { return unix.Pipe2(p, unix.O_CLOEXEC|flags) }
