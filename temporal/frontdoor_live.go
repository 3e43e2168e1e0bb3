package temporal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/shellcap/shellcap"
)

// DefaultOutputPoll is FrontDoorOptions.OutputPoll's default.
const DefaultOutputPoll = 250 * time.Millisecond

// A front-door call whose host takes its output as it arrives
// (toolset.Hooks.Output: the MCP server's progress notifications) carries
// a fresh ToolCall.CallID. The Call activity's heartbeats then carry the
// latest output of that call, by stream offset (liveOutput), and while
// the call is in flight the front door looks at the session workflow's
// pending activities (DescribeWorkflowExecution) every OutputPoll, one
// look per workspace whatever the number of calls, and hands the host the
// bytes it has not handed yet. Heartbeats are not history events: the
// session's history does not grow with the output.
//
// It is best effort, as progress notifications are. Output that outruns
// what a heartbeat keeps (liveBytes) between two looks is skipped and
// marked "[... N bytes omitted ...]", as the library marks the bytes a
// result omits; the output printed after the last look is not handed
// (the result has it). A retried activity runs its command again: its
// output is handed from its start again.

// liveCall is one in-flight call's sink.
type liveCall struct {
	output func(shellcap.Stream, []byte)

	mu      sync.Mutex
	closed  bool
	attempt int32
	next    int64 // stream offset of the first byte not handed yet
}

// deliver hands the host the bytes of o it has not handed yet.
func (l *liveCall) deliver(o liveOutput) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if o.Attempt != l.attempt {
		l.attempt, l.next = o.Attempt, 0
	}
	off := o.Start
	for _, c := range o.Chunks {
		stream := shellcap.Stdout
		if c.Stderr {
			stream = shellcap.Stderr
		}
		start, end, data := off, off+int64(len(c.Data)), c.Data
		off = end
		if end <= l.next {
			continue // handed already
		}
		if start < l.next {
			data, start = data[l.next-start:], l.next
		}
		if start > l.next {
			// Skipped: say how much, and start the rest on a character
			// boundary.
			for len(data) > 0 && !utf8.RuneStart(data[0]) {
				data, start = data[1:], start+1
			}
			marker := "\n[... " + strconv.FormatInt(start-l.next, 10) + " bytes omitted ...]\n"
			if l.next == 0 {
				marker = marker[1:]
			}
			l.output(stream, []byte(marker))
		}
		if len(data) > 0 {
			l.output(stream, data)
		}
		l.next = end
	}
}

// close ends the sink: once it returns, the host is handed nothing more.
func (l *liveCall) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// livePoller looks at the pending activities of one workspace's session
// workflow while calls that asked for live output are in flight.
type livePoller struct {
	ws       WorkspaceRef
	interval time.Duration
	dc       converter.DataConverter
	// describe returns the heartbeat details of the session workflow's
	// pending Call activities.
	describe func(ctx context.Context, workflowID string) ([]*commonpb.Payloads, error)

	mu      sync.Mutex
	calls   map[string]*liveCall
	running bool
}

// newCallID is a fresh call ID.
func newCallID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// add registers a call and starts the looks if they are not running.
func (p *livePoller) add(id string, l *liveCall) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls[id] = l
	if !p.running {
		p.running = true
		go p.loop()
	}
}

// remove unregisters a call; once it returns, the call's host is handed
// nothing more.
func (p *livePoller) remove(id string) {
	p.mu.Lock()
	l := p.calls[id]
	delete(p.calls, id)
	p.mu.Unlock()
	if l != nil {
		l.close()
	}
}

// loop looks every interval until no call is registered.
func (p *livePoller) loop() {
	for {
		time.Sleep(p.interval)
		p.mu.Lock()
		if len(p.calls) == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		calls := make(map[string]*liveCall, len(p.calls))
		for id, l := range p.calls {
			calls[id] = l
		}
		p.mu.Unlock()
		p.look(calls)
	}
}

// look reads the heartbeats of the session's pending activities once and
// delivers those of the calls.
func (p *livePoller) look(calls map[string]*liveCall) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	beats, err := p.describe(ctx, SessionWorkflowID(p.ws))
	if err != nil {
		return // best effort: the next look tries again
	}
	for _, hb := range beats {
		if len(hb.GetPayloads()) < 2 {
			continue
		}
		var o liveOutput
		if p.dc.FromPayload(hb.GetPayloads()[1], &o) != nil || o.CallID == "" {
			continue
		}
		if l := calls[o.CallID]; l != nil {
			l.deliver(o)
		}
	}
}
