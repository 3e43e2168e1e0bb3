//go:build !unix

package proc

import (
	"errors"
	"syscall"
	"time"
)

var errUnsupported = errors.New("proc: not supported on this platform")

// WaitExited is not supported outside Unix.
func WaitExited(pid int) error { return errUnsupported }

// SignalGroup is not supported outside Unix.
func SignalGroup(pgid int, sig syscall.Signal) error { return errUnsupported }

// GroupExists is not supported outside Unix.
func GroupExists(pgid int) bool { return false }

// GroupMembers is not supported outside Unix.
func GroupMembers(pgid, exclude int) ([]Info, error) { return nil, errUnsupported }

// Stat is not supported outside Unix.
func Stat(pid int) (Info, error) { return Info{}, errUnsupported }

// HasChild is not supported outside Unix.
func HasChild(pid int) bool { return false }

// TicksAt is not supported outside Unix.
func TicksAt(t time.Time) (uint64, bool) { return 0, false }

// Terminate is not supported outside Unix.
func Terminate(pgid int, grace time.Duration, exited <-chan error) {}
