//go:build !unix

package jobs

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

const supported = false

var errUnsupported = errors.New("jobs: not supported on this platform")

func punchHole(f *os.File, off, length int64) error { return errUnsupported }
func reapChild(pid int) bool                        { return true }
func alive(pid int, ticks uint64) bool              { return false }
func hasChild(pid int) bool                         { return true }

func sessionAttr() *syscall.SysProcAttr           { return nil }
func killPID(pid int, sig syscall.Signal) error   { return errUnsupported }
func openStdinFIFO(path string) (*os.File, error) { return nil, errUnsupported }
func lockFIFO(f *os.File) error                   { return errUnsupported }
func unlockFIFO(f *os.File) error                 { return errUnsupported }
func lockFile(f *os.File) error                   { return errUnsupported }
func tryLockFile(f *os.File) error                { return errUnsupported }

var errWouldBlock = errors.New("jobs: the lock is held")

func sameFile(f *os.File, fi fs.FileInfo) bool { return false }

var (
	errNoReader = errors.New("jobs: nobody reads the stdin FIFO")
	errNotFIFO  = errors.New("jobs: the stdin path is not a FIFO")
)

type pinned struct{}

func pin(pid int, ticks uint64, pgid int) *pinned { return nil }
func (p *pinned) signal(sig syscall.Signal) error { return errUnsupported }
func (p *pinned) waitExit(d time.Duration) bool   { return true }
func (p *pinned) exited() bool                    { return true }
func (p *pinned) close()                          {}

func ownedPrivate(fi os.FileInfo, deny os.FileMode) error { return errUnsupported }
func writableDir(dir string) bool                         { return false }

func closeOnExec(fd int) {}
