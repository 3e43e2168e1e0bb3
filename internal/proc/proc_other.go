//go:build !linux

package proc

import (
	"errors"
	"syscall"
	"time"
)

// Info describes one process.
type Info struct {
	PID        int
	Comm       string
	State      byte
	PGID       int
	SID        int
	StartTicks uint64
	ExitCode   int
}

var errUnsupported = errors.New("proc: not supported on this platform")

// WaitExited is not supported outside Linux.
func WaitExited(pid int) error { return errUnsupported }

// SignalGroup is not supported outside Linux.
func SignalGroup(pgid int, sig syscall.Signal) error { return errUnsupported }

// GroupExists is not supported outside Linux.
func GroupExists(pgid int) bool { return false }

// GroupMembers is not supported outside Linux.
func GroupMembers(pgid, exclude int) ([]Info, error) { return nil, errUnsupported }

// Stat is not supported outside Linux.
func Stat(pid int) (Info, error) { return Info{}, errUnsupported }

// Terminate is not supported outside Linux.
func Terminate(pgid int, grace time.Duration, exited <-chan error) {}
