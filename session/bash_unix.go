//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"context"
	"errors"
	"github.com/shellcap/shellcap/internal/core"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/proc"
)

// bash is one running shell process and our ends of its pipes. Only the
// Session's goroutine holding Session.mu uses it, except wake, which the
// exit watcher and context callbacks call.
type bash struct {
	proc    *os.Process
	pid     int                   // also its process group ID
	sandbox *shellcap.Enforcement // what confines it, nil without a sandbox
	input   *os.File
	inputFD int // input's descriptor, non-blocking

	stdout, stderr, status int // non-blocking read ends
	outEOF, errEOF         bool
	statusEOF              bool
	statusBuf              []byte
	records                []record

	waiter  *waiter       // waits for status, stdout, stderr and wakeR
	exited  chan struct{} // closed once the shell has exited (not yet reaped)
	buf     []byte        // for reads from the pipes
	release func()        // ends the Shell's watch over the group (DieWithProcess)

	wakeMu     sync.Mutex
	wakeR      int
	wakeW      int
	wakeClosed bool
}

// startBash starts an interactive bash through the Shell's command
// preparation (resource limits, environment, new session) and, when the
// Shell has a sandbox, inside it: the whole session runs confined.
//
// cmdFile becomes the shell's descriptor 4, sharing its file offset.
func startBash(c *core.Shell, env map[string]string, cmdFile *os.File) (*bash, error) {
	probe, err := c.Cmd(":", "", env)
	if err != nil {
		return nil, err
	}
	bashPath := probe.Path
	if filepath.Base(bashPath) != "bash" {
		if bashPath, err = exec.LookPath("bash"); err != nil {
			return nil, errors.New("session: bash is required: " + err.Error())
		}
	}
	cmd, err := c.Cmd("exec "+shellQuote(bashPath)+" --norc --noprofile --noediting +o history -i", "", env)
	if err != nil {
		return nil, err
	}

	b := &bash{exited: make(chan struct{})}
	var fds []int // every descriptor opened so far, for cleanup on failure
	fail := func(err error) (*bash, error) {
		if b.waiter != nil {
			b.waiter.close()
		}
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		return nil, err
	}
	pipe := func(flags int) (r, w int, err error) {
		var p [2]int
		if err := pipe2(p[:], flags); err != nil {
			return -1, -1, err
		}
		fds = append(fds, p[0], p[1])
		return p[0], p[1], nil
	}
	var outW, errW, statusW, inR, inW int
	if b.stdout, outW, err = pipe(0); err != nil {
		return fail(err)
	}
	if b.stderr, errW, err = pipe(0); err != nil {
		return fail(err)
	}
	if b.status, statusW, err = pipe(0); err != nil {
		return fail(err)
	}
	if inR, inW, err = pipe(0); err != nil {
		return fail(err)
	}
	if b.wakeR, b.wakeW, err = pipe(unix.O_NONBLOCK); err != nil {
		return fail(err)
	}
	for _, fd := range []int{b.stdout, b.stderr, b.status, inW} {
		if err := unix.SetNonblock(fd, true); err != nil {
			return fail(err)
		}
	}
	if b.waiter, err = newWaiter([waitFDs]int{b.status, b.stdout, b.stderr, b.wakeR}); err != nil {
		return fail(err)
	}
	child := func(fd int, name string) *os.File { return os.NewFile(uintptr(fd), name) }
	cmd.Stdin = child(inR, "session-stdin")
	cmd.Stdout = child(outW, "session-stdout")
	cmd.Stderr = child(errW, "session-stderr")
	cmd.ExtraFiles = []*os.File{child(statusW, "session-status"), cmdFile} // fds 3 and 4
	p, e, startErr := c.Start(cmd)
	enf, _ := e.(*shellcap.Enforcement)
	// The child has its copies; close ours (os.File owns them now).
	for _, f := range []*os.File{cmd.Stdin.(*os.File), cmd.Stdout.(*os.File), cmd.Stderr.(*os.File), cmd.ExtraFiles[0]} {
		_ = f.Close()
	}
	fds = []int{b.stdout, b.stderr, b.status, inW, b.wakeR, b.wakeW}
	if startErr != nil {
		if errors.Is(startErr, shellcap.ErrSandbox) {
			return fail(startErr)
		}
		return fail(&shellcap.StartError{Err: startErr})
	}
	b.proc, b.pid, b.sandbox = p, p.Pid, enf
	if b.release, err = c.WatchGroup(p.Pid); err != nil {
		// Fail closed: a shell that would outlive us does not run.
		_ = proc.SignalGroup(p.Pid, syscall.SIGKILL)
		_, _ = p.Wait()
		return fail(err)
	}
	b.input = os.NewFile(uintptr(inW), "session-input") // non-blocking: pollable, with deadlines
	b.inputFD = inW
	go func() {
		_ = proc.WaitExited(b.pid)
		close(b.exited)
		b.wake()
	}()
	return b, nil
}

// wake interrupts a poll in progress.
func (b *bash) wake() {
	b.wakeMu.Lock()
	defer b.wakeMu.Unlock()
	if !b.wakeClosed {
		_, _ = unix.Write(b.wakeW, []byte{1})
	}
}

// send writes a step line to the shell's input: directly when the pipe
// has room (it nearly always has: the shell reads every line), else
// through the poller with a deadline.
func (b *bash) send(line string) error {
	n, err := unix.Write(b.inputFD, []byte(line))
	if err == nil && n == len(line) {
		return nil
	}
	if err != nil && !errors.Is(err, unix.EAGAIN) {
		return err
	}
	_ = b.input.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err = b.input.WriteString(line[max(n, 0):])
	return err
}

// signal sends sig to the shell's whole process group. The shell is not
// reaped before kill, so its group ID cannot have been reused.
func (b *bash) signal(sig syscall.Signal) {
	_ = proc.SignalGroup(b.pid, sig)
}

// kill stops the shell and every process in its group, reaps it and
// closes the pipes. It returns the shell's wait status.
func (b *bash) kill() *os.ProcessState {
	select {
	case <-b.exited:
	default:
		b.signal(syscall.SIGKILL)
	}
	// Processes the command left in the group die with the session.
	b.signal(syscall.SIGKILL)
	<-b.exited
	state, _ := b.proc.Wait()
	if b.release != nil {
		b.release()
	}
	_ = b.input.Close()
	b.waiter.close()
	b.wakeMu.Lock()
	b.wakeClosed = true
	for _, fd := range []int{b.stdout, b.stderr, b.status, b.wakeR, b.wakeW} {
		_ = unix.Close(fd)
	}
	b.wakeMu.Unlock()
	return state
}

// waitExit waits up to d for the shell to exit on its own.
func (b *bash) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-b.exited:
		return true
	case <-t.C:
		return false
	}
}

// outcome says why await returned.
type outcome int

const (
	gotRecord outcome = iota
	shellDied
	deadlineHit
	ctxDone
	capHit
)

// await reads output into out and status records until a record with an
// id of at least minID that issued accepts arrives (it then drains the
// output that came before it), the shell dies, the deadline passes, ctx
// ends or out's cap is hit. Records with other ids are skipped. A zero
// deadline or nil ctx means none.
func (b *bash) await(ctx context.Context, minID uint64, issued func(uint64) bool, deadline time.Time, out *sink) (record, outcome) {
	if ctx != nil {
		stop := context.AfterFunc(ctx, b.wake)
		defer stop()
	}
	if b.buf == nil {
		b.buf = make([]byte, 64<<10)
	}
	buf := b.buf
	for {
		for len(b.records) > 0 {
			rec := b.records[0]
			b.records = b.records[1:]
			if rec.id >= minID && issued(rec.id) {
				b.drainAvailable(out, buf)
				return rec, gotRecord
			}
		}
		if b.statusEOF {
			b.drainAvailable(out, buf)
			return record{}, shellDied
		}
		if out.takeCapHit() {
			return record{}, capHit
		}
		if ctx != nil && ctx.Err() != nil {
			return record{}, ctxDone
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return record{}, deadlineHit
		}
		ready, _, err := b.waiter.wait(deadline, [waitFDs]bool{1: b.outEOF, 2: b.errEOF})
		if err != nil {
			return record{}, shellDied
		}
		if ready[3] {
			b.drainWake(buf)
		}
		if ready[1] {
			b.readOutput(b.stdout, &b.outEOF, out, shellcap.Stdout, buf)
		}
		if ready[2] {
			b.readOutput(b.stderr, &b.errEOF, out, shellcap.Stderr, buf)
		}
		if ready[0] {
			b.readStatus(buf)
		}
		if !b.statusEOF {
			select {
			case <-b.exited:
				// Exited but something still holds the status pipe
				// open: treat the shell as dead all the same.
				b.readStatus(buf)
				b.statusEOF = true
			default:
			}
		}
	}
}

// readOutput reads what one output pipe holds now.
func (b *bash) readOutput(fd int, eof *bool, out *sink, stream shellcap.Stream, buf []byte) {
	for {
		n, err := unix.Read(fd, buf)
		if n > 0 {
			out.write(stream, buf[:n])
		}
		if n == 0 && err == nil {
			*eof = true
			return
		}
		if err != nil || n < len(buf) {
			return
		}
	}
}

// drainAvailable reads exactly the bytes the output pipes hold now: all
// of them were written before the status record (or before the shell
// died), while output that background processes keep writing does not
// keep us reading.
func (b *bash) drainAvailable(out *sink, buf []byte) {
	for _, s := range []struct {
		fd     int
		eof    *bool
		stream shellcap.Stream
	}{{b.stdout, &b.outEOF, shellcap.Stdout}, {b.stderr, &b.errEOF, shellcap.Stderr}} {
		if *s.eof {
			continue
		}
		left, err := unix.IoctlGetInt(s.fd, fionread)
		for err == nil && left > 0 {
			n, rerr := unix.Read(s.fd, buf[:min(left, len(buf))])
			if n <= 0 || rerr != nil {
				break
			}
			out.write(s.stream, buf[:n])
			left -= n
		}
	}
}

// readStatus reads status bytes and parses complete records.
func (b *bash) readStatus(buf []byte) {
	for {
		n, err := unix.Read(b.status, buf)
		if n > 0 {
			b.statusBuf = append(b.statusBuf, buf[:n]...)
		}
		if n == 0 && err == nil {
			b.statusEOF = true
			break
		}
		if err != nil || n < len(buf) {
			break
		}
	}
	recs, rest, err := parseRecords(b.statusBuf)
	b.records = append(b.records, recs...)
	if err != nil {
		// A status stream we cannot read is a shell we cannot trust.
		b.statusEOF = true
		rest = nil
	}
	b.statusBuf = append(b.statusBuf[:0], rest...)
}

func (b *bash) drainWake(buf []byte) {
	for {
		if n, err := unix.Read(b.wakeR, buf); n <= 0 || err != nil {
			return
		}
	}
}

// membersSince lists the processes in the shell's group, the shell
// excluded, that started at or after since (give or take a clock tick).
func (b *bash) membersSince(since time.Time) []int {
	members, err := proc.GroupMembers(b.pid, b.pid)
	if err != nil {
		return nil
	}
	startTicks, ok := proc.TicksAt(since)
	var pids []int
	for _, m := range members {
		if !ok || m.StartTicks+1 >= startTicks {
			pids = append(pids, m.PID)
		}
	}
	return pids
}
