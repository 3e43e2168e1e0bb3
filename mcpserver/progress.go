package mcpserver

import (
	"context"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
)

// maxProgressChunk bounds the output carried by one progress notification.
const maxProgressChunk = 4096

// progress forwards a running command's output as progress notifications,
// when the client sent a progress token. Notifications go out in order from
// one goroutine, so a slow client never blocks the command's pipes: chunks
// that arrive while it is busy are merged, and output beyond a bound is
// dropped from the notifications (never from the result).
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	mu      sync.Mutex
	pending []byte
	dropped int     // bytes left out of the notifications since the last one
	sent    float64 // the last progress value: output bytes so far
	wake    chan struct{}
	done    chan struct{}
	stopped bool
}

func newProgress(ctx context.Context, req *mcp.CallToolRequest) *progress {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return &progress{}
	}
	p := &progress{ctx: ctx, session: req.Session, token: tok, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go p.loop()
	return p
}

// output is the Request.OnOutput callback.
func (p *progress) output(_ shellcap.Stream, data []byte) {
	if p.wake == nil {
		return
	}
	p.mu.Lock()
	keep := min(max(64*maxProgressChunk-len(p.pending), 0), len(data))
	p.pending = append(p.pending, data[:keep]...)
	p.dropped += len(data) - keep
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *progress) loop() {
	defer close(p.done)
	for {
		_, ok := <-p.wake
		for {
			p.mu.Lock()
			n := min(len(p.pending), maxProgressChunk)
			for n > 0 && n < len(p.pending) && !utf8.RuneStart(p.pending[n]) {
				n-- // do not split a character between notifications
			}
			chunk := string(p.pending[:n])
			p.pending = p.pending[n:]
			if chunk == "" {
				p.mu.Unlock()
				break
			}
			// Progress counts the output bytes up to this chunk's end, so
			// it strictly increases from one notification to the next.
			p.sent += float64(n + p.dropped)
			p.dropped = 0
			progress := p.sent
			p.mu.Unlock()
			_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
				ProgressToken: p.token,
				Progress:      progress,
				Message:       chunk,
			})
		}
		if !ok {
			return
		}
	}
}

// stop flushes what is pending and ends the loop.
func (p *progress) stop() {
	if p.wake == nil {
		return
	}
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.stopped = true
	p.mu.Unlock()
	close(p.wake)
	<-p.done
}
