package container

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Bounds on the engine client once the command inside was killed.
const (
	clientExitWait = 15 * time.Second // for the client to notice and exit
	pipeWaitDelay  = 5 * time.Second  // for output pipes after it exited
	killRetry      = 2 * time.Second  // between kills while the client runs
)

// job is one command running through the engine client.
type job struct {
	exec     *Executor
	id       string // the stateless container's name, or the run marker
	argv     []string
	stdin    io.Reader
	onOutput func(shellcap.Stream, []byte)
	timeout  time.Duration
}

// outcome is what happened to a job.
type outcome struct {
	exitCode int
	signal   string
	timedOut bool
	canceled bool
	limitHit bool
	killErr  error // stopping the command inside the container failed
	stdout   *capture.Buffer
	stderr   *capture.Buffer
}

// run starts the engine client, waits under the timeout, the context and
// the output cap, and on any of them kills the command inside the
// container before it stops waiting for the client.
func (j *job) run(ctx context.Context) (*outcome, error) {
	o := &outcome{stdout: j.exec.newBuffer(j.exec.budgets[0]), stderr: j.exec.newBuffer(j.exec.budgets[1])}
	lim := &limiter{max: j.exec.opts.MaxOutputBytes, hit: make(chan struct{})}
	cmd := exec.Command(j.argv[0], j.argv[1:]...)
	cmd.Stdin = j.stdin
	cmd.Stdout = &streamWriter{buf: o.stdout, stream: shellcap.Stdout, lim: lim, onOutput: j.onOutput}
	cmd.Stderr = &streamWriter{buf: o.stderr, stream: shellcap.Stderr, lim: lim, onOutput: j.onOutput}
	cmd.WaitDelay = pipeWaitDelay
	cmd.SysProcAttr = clientAttr()
	if err := cmd.Start(); err != nil {
		return nil, &shellcap.StartError{Err: err}
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()

	timer := time.NewTimer(j.timeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		o.timedOut = true
	case <-ctx.Done():
		o.canceled = true
	case <-lim.hit:
		o.limitHit = true
	}
	if o.timedOut || o.canceled || o.limitHit {
		o.killErr = j.stop(done, cmd)
		if j.exec.opts.Mode == Stateless {
			// --rm normally removes it; make sure even if the client died first.
			if err := j.exec.remove(j.id); err != nil && o.killErr == nil {
				o.killErr = err
			}
		}
	}
	select {
	case <-lim.hit:
		o.limitHit = true
	default:
	}
	o.exitCode, o.signal = proc.ExitStatus(cmd.ProcessState)
	return o, nil
}

// stop stops the command inside the container in two phases and waits
// for the engine client to exit: SIGTERM, then, once the Shell's
// KillGrace is over or the command has ended, SIGKILL for what is left.
// The kill is repeated while the client runs: a timeout can fire while
// the engine is still creating the container, before there is anything
// to signal (then there is no grace). Past clientExitWait the client
// itself is killed.
func (j *job) stop(done <-chan struct{}, cmd *exec.Cmd) error {
	if grace := j.exec.killGrace; grace > 0 && j.terminate() == nil {
		t := time.NewTimer(grace)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
	}
	giveUp := time.NewTimer(clientExitWait)
	defer giveUp.Stop()
	var err error
	for {
		err = j.kill()
		retry := time.NewTimer(killRetry)
		select {
		case <-done:
			retry.Stop()
			return err
		case <-giveUp.C:
			retry.Stop()
			_ = cmd.Process.Kill()
			<-done
			return err
		case <-retry.C:
		}
	}
}

// kill stops the command inside the container. Stateless: the container
// itself is killed. Persistent: every process carrying this command's
// marker, and the process group of each, is killed, while the container
// and other commands stay.
func (j *job) kill() error {
	e := j.exec
	if e.opts.Mode == Stateless {
		out, err := e.engine(context.Background(), "kill", "--signal", "KILL", j.id)
		if err != nil && !isNoSuchContainer(out) && !strings.Contains(strings.ToLower(out), "not running") {
			return e.remove(j.id)
		}
		return nil
	}
	_, err := e.engine(context.Background(), "exec", e.name, e.opts.ShellPath, "-c", killScript, "shellcap-kill", runMarker+"="+j.id)
	return err
}

// terminate sends SIGTERM to the command inside the container, the first
// phase of stop. Stateless: every process in the container, PID 1 (the
// command's shell, which the kernel shields from signals it has no
// handler for) included. Persistent: every process carrying the command's
// marker, and the process group of each. An error means the command could
// not be reached (the container may still be starting).
func (j *job) terminate() error {
	e := j.exec
	if e.opts.Mode == Stateless {
		_, err := e.engine(context.Background(), "exec", j.id, e.opts.ShellPath, "-c", "kill -TERM -- -1 2>/dev/null; kill -TERM 1 2>/dev/null; exit 0")
		return err
	}
	_, err := e.engine(context.Background(), "exec", e.name, e.opts.ShellPath, "-c", killScript, "shellcap-kill", runMarker+"="+j.id, "TERM")
	return err
}

// killScript sends signal "$2" (KILL when absent) to every process whose
// environment holds "$1", skipping itself: to the process group of each
// that leads one (an exec'd command leads its own session), then to each
// other such process outside those groups, so every process gets it once.
// KILL goes three passes over, to catch what forked meanwhile; any other
// signal goes once, as a command that traps it would run its handler
// again for each.
const killScript = `marker=$1 sig=${2:-KILL}
for pass in 1 2 3; do
  leaders= others=
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$p" = "$$" ] && continue
    tr '\000' '\n' < "$d/environ" 2>/dev/null | grep -qx "$marker" || continue
    s=$(cat "$d/stat" 2>/dev/null) || continue
    set -- ${s##*) }
    if [ "$3" = "$p" ]; then leaders="$leaders $p"; else others="$others $p:$3"; fi
  done
  for p in $leaders; do kill -"$sig" -- "-$p" 2>/dev/null; done
  for o in $others; do
    case " $leaders " in *" ${o#*:} "*) continue ;; esac
    kill -"$sig" -- "${o%:*}" 2>/dev/null
  done
  [ "$sig" = KILL ] || break
done
exit 0`

// limiter counts bytes of both streams against Options.MaxOutputBytes.
type limiter struct {
	max   int64 // <= 0: no cap
	total atomic.Int64
	once  sync.Once
	hit   chan struct{}
}

// take returns how much of n bytes may still be kept.
func (l *limiter) take(n int) int {
	if l.max <= 0 {
		return n
	}
	after := l.total.Add(int64(n))
	before := after - int64(n)
	if after > l.max {
		l.once.Do(func() { close(l.hit) })
	}
	switch {
	case before >= l.max:
		return 0
	case after > l.max:
		return int(l.max - before)
	}
	return n
}

// streamWriter feeds one output stream into its bounded buffer.
type streamWriter struct {
	buf      *capture.Buffer
	stream   shellcap.Stream
	lim      *limiter
	onOutput func(shellcap.Stream, []byte)
}

func (w *streamWriter) Write(p []byte) (int, error) {
	keep := p[:w.lim.take(len(p))]
	if len(keep) > 0 {
		_, _ = w.buf.Write(keep)
		if w.onOutput != nil {
			w.onOutput(w.stream, keep)
		}
	}
	return len(p), nil // past the cap, read and discard so the writer never blocks
}

// newBuffer returns a capture buffer sized by the core's rule for a
// stream with budget b (the zero Budget: the MaxOutputChars rule).
func (e *Executor) newBuffer(b core.Budget) *capture.Buffer {
	head, tail := b.KeepBytes(e.opts.MaxOutputChars, e.opts.MaxOutputBytes)
	return capture.New(head, tail, nil)
}

// fill turns the outcome into the result's fields and notes.
func (e *Executor) fill(res *shellcap.Result, out *outcome) {
	res.TimedOut, res.Canceled, res.OutputLimitExceeded = out.timedOut, out.canceled, out.limitHit
	res.ExitCode, res.Signal = out.exitCode, out.signal
	res.Stdout, res.StdoutOmitted = e.text(out.stdout, e.budgets[0])
	res.Stderr, res.StderrOmitted = e.text(out.stderr, e.budgets[1])
	res.StdoutBytes, res.StderrBytes = out.stdout.Total(), out.stderr.Total()
	res.Truncated = res.StdoutOmitted > 0 || res.StderrOmitted > 0 || out.limitHit
	if out.canceled {
		res.Notes = append(res.Notes, "Command was cancelled; its processes in the container were killed.")
	}
	if out.limitHit {
		res.Notes = append(res.Notes, fmt.Sprintf("Output exceeded %d bytes; the command was stopped. Redirect large output to a file and read parts of it.", e.opts.MaxOutputBytes))
	}
	if out.killErr != nil {
		res.Notes = append(res.Notes, "Stopping the command inside the container may have failed: "+out.killErr.Error())
	}
	full := *res
	full.TextLimit = 0
	if e.opts.MaxOutputChars > 0 && utf8.RuneCountInString(full.Text()) > e.opts.MaxOutputChars {
		res.Truncated = true
	}
}

// text is what a result shows of a stream and how many of its bytes it
// leaves out: the stream's budget of characters at each end when it has
// one (as Shell.Run), else what the buffer kept.
func (e *Executor) text(b *capture.Buffer, budget core.Budget) (string, int64) {
	_ = b.Close()
	kept, omitted := b.Bytes(), b.Omitted()
	if !budget.IsZero() {
		kept, omitted = b.BytesWithin(budget.Head, budget.Tail)
	}
	s := string(kept)
	if !e.opts.KeepANSI {
		s = textfmt.StripANSI(s)
	}
	return s, omitted
}
