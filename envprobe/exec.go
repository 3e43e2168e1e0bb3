package envprobe

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shellcap/shellcap/internal/core"
)

// maxProbeOutput bounds what is kept of each stream of a probe; the rest
// is read and dropped.
const maxProbeOutput = 16 << 10

// maxConcurrent bounds the probes running at once, so that a low limit on
// open files costs speed before it costs answers.
const maxConcurrent = 3

// outcome is what a probe command did.
type outcome struct {
	stdout, stderr string
	exitCode       int // 128+N when signal N ended it
	timedOut       bool
	canceled       bool
}

// starter runs a probe command the way the Shell runs its commands,
// without its policy or approval: the probes are the host's own fixed
// commands, not the agent's. *coreStarter is the one in use.
type starter interface {
	start(command string, stdout, stderr *os.File) (*os.Process, error)
	watch(pgid int) func()
}

// coreStarter starts probes through the Shell's seam: the Shell's shell,
// resource-limit prelude, scrubbed environment and workspace (core.Cmd),
// started inside its sandbox when it has one (core.Start).
type coreStarter struct{ c *core.Shell }

func (s coreStarter) start(command string, stdout, stderr *os.File) (*os.Process, error) {
	cmd, err := s.c.Cmd(command, "", nil)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	p, _, err := s.c.Start(cmd)
	return p, err
}

func (s coreStarter) watch(pgid int) func() {
	if s.c.WatchGroup == nil {
		return func() {}
	}
	release, err := s.c.WatchGroup(pgid)
	if err != nil || release == nil {
		return func() {}
	}
	return release
}

// execute runs one probe command with a timeout: when it ends (or ctx
// does) the command's process group is killed. The error is a host-side
// reason the probe could not run (too many open files, a read-only
// workspace, a sandbox that cannot start).
func execute(ctx context.Context, st starter, command string, timeout time.Duration) (*outcome, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	p, err := st.start(command, outW, errW)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	release := st.watch(p.Pid)
	defer release()

	var wg sync.WaitGroup
	var stdout, stderr strings.Builder
	for _, pair := range []struct {
		r *os.File
		b *strings.Builder
	}{{outR, &stdout}, {errR, &stderr}} {
		wg.Go(func() {
			defer pair.r.Close()
			_, _ = io.Copy(pair.b, io.LimitReader(pair.r, maxProbeOutput))
			_, _ = io.Copy(io.Discard, pair.r)
		})
	}

	o := &outcome{}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-timer.C:
			o.timedOut = true
		case <-ctx.Done():
			o.canceled = true
		case <-done:
			return
		}
		killGroup(p)
	}()
	state, werr := p.Wait()
	close(done)
	<-stopped
	// Whatever the command left in its group goes with it, so that no
	// leftover holds the pipes open.
	killGroup(p)
	wg.Wait()
	if werr != nil {
		return nil, werr
	}
	o.exitCode, _ = core.ExitStatus(state)
	o.stdout, o.stderr = stdout.String(), stderr.String()
	return o, nil
}

// hostReason words a host-side failure for the snapshot.
func hostReason(err error) string {
	if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
		return "too many open files (raise the limit, e.g. ulimit -n)"
	}
	return oneLine(err.Error())
}
