package temporal

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"

	"github.com/shellcap/shellcap"
)

// liveBytes bounds the output a heartbeat carries for a call that asked
// for live output (ToolCall.CallID): the latest bytes of both streams, as
// they arrived. Output that outruns it between two looks of the front
// door is skipped there, and marked as omitted.
const liveBytes = 64 << 10

// liveOutput is the second detail of a Call activity's heartbeat when its
// call asked for live output: the latest output, by stream offset (the
// bytes of both streams, in the order they arrived, since the activity
// started).
type liveOutput struct {
	// CallID is the call's ToolCall.CallID.
	CallID string `json:"call_id"`
	// Attempt is the activity's attempt: a retried activity runs its
	// command again, from offset zero.
	Attempt int32 `json:"attempt"`
	// Start is the stream offset of the first byte of Chunks.
	Start int64 `json:"start"`
	// Chunks are the latest output, at most liveBytes, oldest first.
	Chunks []liveChunk `json:"chunks,omitempty"`
}

// liveChunk is output of one stream.
type liveChunk struct {
	Stderr bool   `json:"stderr,omitempty"`
	Data   []byte `json:"data"`
}

// tracker counts a running command's output and keeps its tail, for the
// heartbeats, and, for a call that asked for live output, its latest
// bytes by stream offset.
type tracker struct {
	start time.Time
	wake  chan struct{} // output arrived (live calls only)

	mu             sync.Mutex
	stdout, stderr int64
	tail           []byte      // at most TailBytes, the latest output
	live           *liveOutput // nil unless the call asked for it
	liveSize       int
}

func newTracker() *tracker { return &tracker{start: time.Now()} }

// keepLive makes the tracker keep the latest output for the live output
// of call callID, attempt attempt.
func (t *tracker) keepLive(callID string, attempt int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.live = &liveOutput{CallID: callID, Attempt: attempt}
	t.wake = make(chan struct{}, 1)
}

// output is a shellcap.Request.OnOutput (and toolset.Hooks.Output).
func (t *tracker) output(stream shellcap.Stream, p []byte) {
	if len(p) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if stream == shellcap.Stderr {
		t.stderr += int64(len(p))
	} else {
		t.stdout += int64(len(p))
	}
	if len(p) >= TailBytes {
		t.tail = append(t.tail[:0], p[len(p)-TailBytes:]...)
	} else {
		if over := len(t.tail) + len(p) - TailBytes; over > 0 {
			t.tail = append(t.tail[:0], t.tail[over:]...)
		}
		t.tail = append(t.tail, p...)
	}
	if t.live != nil {
		t.keep(stream == shellcap.Stderr, p)
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
}

// keep adds p to the live output and drops its oldest bytes beyond
// liveBytes.
func (t *tracker) keep(stderr bool, p []byte) {
	l := t.live
	if n := len(l.Chunks); n > 0 && l.Chunks[n-1].Stderr == stderr {
		l.Chunks[n-1].Data = append(l.Chunks[n-1].Data, p...)
	} else {
		l.Chunks = append(l.Chunks, liveChunk{Stderr: stderr, Data: append([]byte(nil), p...)})
	}
	t.liveSize += len(p)
	for t.liveSize > liveBytes {
		over := t.liveSize - liveBytes
		first := &l.Chunks[0]
		if len(first.Data) <= over {
			l.Start += int64(len(first.Data))
			t.liveSize -= len(first.Data)
			l.Chunks = l.Chunks[1:]
			continue
		}
		first.Data = first.Data[over:]
		l.Start += int64(over)
		t.liveSize -= over
	}
}

// progress is the progress so far; the tail starts on a UTF-8 boundary.
func (t *tracker) progress() Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	tail := t.tail
	for i := 0; i < len(tail) && i < utf8.UTFMax && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	return Progress{StdoutBytes: t.stdout, StderrBytes: t.stderr, Tail: string(tail), Elapsed: time.Since(t.start)}
}

// liveCopy is a copy of the live output, nil when the call did not ask
// for it.
func (t *tracker) liveCopy() *liveOutput {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live == nil {
		return nil
	}
	out := *t.live
	out.Chunks = make([]liveChunk, len(t.live.Chunks))
	for i, c := range t.live.Chunks {
		out.Chunks[i] = liveChunk{Stderr: c.Stderr, Data: append([]byte(nil), c.Data...)}
	}
	return &out
}

// heartbeat records the tracker's progress as the activity's heartbeat
// every interval until the returned stop is called, and with signal also
// sends it to the calling workflow as a ProgressSignal. The heartbeats
// are also how the activity learns that it was cancelled. For a call
// that asked for live output the heartbeat's second detail is the
// liveOutput, and output arriving also records one (the SDK sends the
// first at once and batches the next ones within its throttle interval),
// at most every interval/8.
func heartbeat(ctx context.Context, c client.Client, interval time.Duration, signal bool, t *tracker) (stop func()) {
	info := activity.GetInfo(ctx)
	logger := activity.GetLogger(ctx)
	done := make(chan struct{})
	t.mu.Lock()
	wake := t.wake // nil, which never delivers, unless live
	t.mu.Unlock()
	gap := max(interval/8, 20*time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			ticked := false
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				ticked = true
			case <-wake:
			}
			p := t.progress()
			if live := t.liveCopy(); live != nil {
				activity.RecordHeartbeat(ctx, p, *live)
			} else {
				activity.RecordHeartbeat(ctx, p)
			}
			if !ticked {
				select { // bound the heartbeats chatty output records
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-time.After(gap):
				}
				continue
			}
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
