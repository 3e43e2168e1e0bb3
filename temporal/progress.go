package temporal

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"

	"github.com/shellcap/shellcap"
)

// tracker counts a running command's output and keeps its tail, for the
// heartbeats.
type tracker struct {
	start          time.Time
	stdout, stderr atomic.Int64

	mu   sync.Mutex
	tail []byte // at most TailBytes, the latest output
}

func newTracker() *tracker { return &tracker{start: time.Now()} }

// output is a shellcap.Request.OnOutput (and toolset.Hooks.Output).
func (t *tracker) output(stream shellcap.Stream, p []byte) {
	if stream == shellcap.Stderr {
		t.stderr.Add(int64(len(p)))
	} else {
		t.stdout.Add(int64(len(p)))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= TailBytes {
		t.tail = append(t.tail[:0], p[len(p)-TailBytes:]...)
		return
	}
	if over := len(t.tail) + len(p) - TailBytes; over > 0 {
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
	t.tail = append(t.tail, p...)
}

// progress is the progress so far; the tail starts on a UTF-8 boundary.
func (t *tracker) progress() Progress {
	t.mu.Lock()
	tail := t.tail
	for i := 0; i < len(tail) && i < utf8.UTFMax && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	s := string(tail)
	t.mu.Unlock()
	return Progress{StdoutBytes: t.stdout.Load(), StderrBytes: t.stderr.Load(), Tail: s, Elapsed: time.Since(t.start)}
}

// heartbeat records the tracker's progress as the activity's heartbeat
// every interval until the returned stop is called, and with signal also
// sends it to the calling workflow as a ProgressSignal. The heartbeats
// are also how the activity learns that it was cancelled.
func heartbeat(ctx context.Context, c client.Client, interval time.Duration, signal bool, t *tracker) (stop func()) {
	info := activity.GetInfo(ctx)
	logger := activity.GetLogger(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p := t.progress()
			activity.RecordHeartbeat(ctx, p)
			if !signal || c == nil {
				continue
			}
			sctx, cancel := context.WithTimeout(ctx, interval)
			err := c.SignalWorkflow(sctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID, ProgressSignal,
				ProgressUpdate{ActivityID: info.ActivityID, Progress: p})
			cancel()
			if err != nil && ctx.Err() == nil {
				logger.Warn("shellcap: progress signal failed", "error", err)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
