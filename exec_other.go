//go:build !unix

package shellcap

import (
	"context"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/proc"
)

const groupPoll = 10 * time.Millisecond

type spawn struct {
	cmd      *exec.Cmd
	start    func(*exec.Cmd) (*os.Process, *Enforcement, error)
	confined bool
	stdin    io.Reader
	stdout   *capture.Buffer
	stderr   *capture.Buffer
	onOutput func(Stream, []byte)
	onStart  func(pid int)
	timeout  time.Duration
	grace    time.Duration
	maxBytes int64
	watch    func(pgid int) (release func(), err error)
}

type outcome struct {
	state    *os.ProcessState
	pgid     int
	timedOut bool
	canceled bool
	limitHit bool

	enforcement *Enforcement
	leftover    []proc.Info
	release     func()
}

// execute is not implemented outside Unix.
func execute(ctx context.Context, sp *spawn) (*outcome, error) { return nil, ErrUnsupported }

func startError(err error, dir string) error { return err }

func writable(dir string) bool { return false }
