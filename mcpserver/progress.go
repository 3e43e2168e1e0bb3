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
	total   float64
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
	p.total += float64(len(data))
	if room := 64*maxProgressChunk - len(p.pending); room > 0 {
		p.pending = append(p.pending, data[:min(room, len(data))]...)
	}
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
			total := p.total
			p.mu.Unlock()
			if chunk == "" {
				break
			}
			_ = p.session.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
				ProgressToken: p.token,
				Progress:      total,
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
