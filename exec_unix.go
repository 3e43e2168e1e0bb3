//go:build unix

package shellcap

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/proc"
)

// Drain bounds: how long to keep reading the pipes after the shell exited.
// Processes that escaped the process group (setsid) may hold them open, and
// background children still in the group do by design, so the wait is
// bounded; output they wrote before the shell exited is already in the pipe.
const (
	drainWithLeftovers = 100 * time.Millisecond
	drainAfterExit     = 1 * time.Second
	drainAfterKill     = 500 * time.Millisecond
	groupPoll          = 10 * time.Millisecond
)

// execute starts sp in a new session and process group, waits for it under
// the timeout, the context and the output cap, then drains its pipes within
// a bound. Errors are start failures; everything after a successful start
// is reported in the outcome.
func execute(ctx context.Context, sp *spawn) (*outcome, error) {
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
	cmd := sp.cmd
	cmd.Stdout, cmd.Stderr = outW, errW
	var stdinW *os.File
	in, isFile := sp.stdin.(*os.File)
	direct := isFile && (!sp.confined || isPipe(in))
	switch {
	case sp.stdin == nil:
		// os/exec connects /dev/null.
	case direct:
		cmd.Stdin = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(outR, outW, errR, errW)
			return nil, err
		}
		cmd.Stdin, stdinW = r, w
	}
	p, enf, startErr := sp.start(cmd)
	closeAll(outW, errW)
	closeExtraFiles(cmd) // the child has its copies
	if f, ok := cmd.Stdin.(*os.File); ok && stdinW != nil {
		f.Close() // the child holds its own copy
	}
	if startErr != nil {
		closeAll(outR, errR, stdinW)
		return nil, startErr
	}
	if stdinW != nil {
		go feed(stdinW, sp.stdin)
	}

	pid := p.Pid
	o := &outcome{pgid: pid, enforcement: enf, release: func() {}}
	if sp.watch != nil {
		release, err := sp.watch(pid)
		if err != nil {
			// Fail closed: a command that would outlive us does not run.
			_ = proc.SignalGroup(pid, syscall.SIGKILL)
			_, _ = p.Wait()
			closeAll(outR, errR, stdinW)
			return nil, err
		}
		o.release = release
	}
	if sp.onStart != nil {
		sp.onStart(pid)
	}
	// The leader's exit is waited for on this goroutine; the timeout, the
	// context and the output cap act from callbacks (the watchdog). So the
	// common path, a command that exits on its own, hands nothing over
	// between goroutines.
	exited := make(chan error) // closed once the leader exited, unreaped
	w := &watchdog{}
	terminate := func() { proc.Terminate(pid, sp.grace, exited) }
	limit := make(chan struct{})
	var limitOnce sync.Once
	overLimit := func() {
		limitOnce.Do(func() {
			close(limit)
			// Two phases, like a timeout; off the reader, which keeps
			// draining the pipes meanwhile.
			go w.act(&o.limitHit, terminate)
		})
	}
	var total atomic.Int64
	var readers sync.WaitGroup
	for _, s := range []struct {
		f      *os.File
		buf    *capture.Buffer
		stream Stream
	}{{outR, sp.stdout, Stdout}, {errR, sp.stderr, Stderr}} {
		readers.Go(func() {
			pump(s.f, s.buf, s.stream, sp.onOutput, &total, sp.maxBytes, overLimit)
		})
	}
	timer := time.AfterFunc(sp.timeout, func() { w.act(&o.timedOut, terminate) })
	stopCtx := context.AfterFunc(ctx, func() { w.act(&o.canceled, terminate) })

	_ = proc.WaitExited(pid) // an error means there is nothing to wait for
	close(exited)
	timer.Stop()
	stopCtx()
	killed := w.finish()

	// Reap the leader; only now may its PID (and group ID) be reused.
	// Every stream is an *os.File, so exec.Cmd has nothing to copy.
	o.state, _ = p.Wait()
	if stdinW != nil {
		stdinW.Close()
	}

	drain := drainAfterExit
	if killed {
		drain = drainAfterKill
	} else if proc.GroupExists(pid) {
		o.leftover, _ = proc.GroupMembers(pid, pid)
		if len(o.leftover) > 0 {
			drain = drainWithLeftovers
		}
	}
	if len(o.leftover) == 0 {
		o.release() // a group left running stays watched until Close
		o.release = func() {}
	}
	deadline := time.Now().Add(drain)
	_ = outR.SetReadDeadline(deadline)
	_ = errR.SetReadDeadline(deadline)
	readers.Wait()
	closeAll(outR, errR)
	// A reader may also have hit the cap after the shell exited on its own.
	select {
	case <-limit:
		o.limitHit = true
	default:
	}
	return o, nil
}

// watchdog lets one of the timeout, the context and the output cap stop a
// command, at most once, until the command's leader has exited.
type watchdog struct {
	mu     sync.Mutex
	done   bool          // the leader exited: nothing acts any more
	acting chan struct{} // closed when the one action that ran has finished
}

// act sets *flag and runs stop, unless the leader already exited or
// another action ran. It returns once stop has.
func (w *watchdog) act(flag *bool, stop func()) {
	w.mu.Lock()
	if w.done || w.acting != nil {
		w.mu.Unlock()
		return
	}
	*flag = true
	w.acting = make(chan struct{})
	w.mu.Unlock()
	stop()
	close(w.acting)
}

// finish ends the watch once the leader exited, waits for an action that
// is under way (it may still signal the group, whose leader must stay
// unreaped until then) and reports whether one ran; its flag is then set.
func (w *watchdog) finish() (acted bool) {
	w.mu.Lock()
	w.done = true
	a := w.acting
	w.mu.Unlock()
	if a == nil {
		return false
	}
	<-a
	return true
}

// pump copies one pipe into its capture buffer until EOF or the read
// deadline, counting bytes against the shared output cap. Past the cap it
// keeps reading (so the writer is not blocked) but discards.
func pump(f *os.File, buf *capture.Buffer, stream Stream, onOutput func(Stream, []byte), total *atomic.Int64, maxBytes int64, overLimit func()) {
	bp := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(bp)
	p := *bp
	for {
		n, err := f.Read(p)
		if n > 0 {
			chunk := p[:n]
			if maxBytes > 0 {
				after := total.Add(int64(n))
				if before := after - int64(n); before >= maxBytes {
					chunk = nil
				} else if after > maxBytes {
					chunk = chunk[:maxBytes-before]
				}
				if after > maxBytes {
					overLimit()
				}
			}
			if len(chunk) > 0 {
				_, _ = buf.Write(chunk)
				if onOutput != nil {
					onOutput(stream, chunk)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// readBuffers recycles the pipes' read buffers across commands.
var readBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// feed copies the request's stdin into the command and closes it, so the
// command sees end-of-file. It ends early when the command stops reading.
func feed(w *os.File, r io.Reader) {
	_, _ = io.Copy(w, r)
	_ = w.Close()
}

// isPipe reports whether f is a pipe (or a FIFO).
func isPipe(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeNamedPipe != 0
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}

// startError maps a failed start to what the caller can act on.
func startError(err error, dir string) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Op == "chdir" {
		if errors.Is(err, syscall.ENOTDIR) {
			return requestErr(ErrWorkdirGone, "The working directory is no longer a directory.")
		}
		return requestErr(ErrWorkdirGone, "")
	}
	return &StartError{Err: err}
}
