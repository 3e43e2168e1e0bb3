package adk

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"sync"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
)

// LiveLimit is the most output, in bytes, one call sends to the model
// while it runs, with Options.Live; then the model is told that the live
// output stopped, and it reads the toolset's (bounded) text when the
// command ends.
const LiveLimit = 16 << 10

// liveTool is a toolset tool whose output streams (run_command, shell) as
// an ADK streaming function tool (it has RunStream, which the flow prefers
// to Run). Under runner.RunLive, ADK answers the call at once ("the
// results are pending") and sends each chunk it yields to the model as a
// user turn "Function NAME returned: CHUNK"; the model's stop_streaming
// call cancels its context, which stops the command.
type liveTool struct {
	functionTool
}

// RunStream runs the call and yields the output that arrives while it
// runs, labelled as unfinished, then the toolset's text.
func (l *liveTool) RunStream(ctx agent.Context, args any) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		raw, err := json.Marshal(args)
		if err != nil {
			yield(fmt.Sprintf("Invalid arguments for %s: %v.", l.t.Name, err), nil)
			return
		}
		callCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		feed := newLiveFeed()
		hooks := l.a.hooks(ctx)
		output := hooks.Output
		hooks.Output = func(s shellcap.Stream, data []byte) {
			feed.add(s, data)
			if output != nil {
				output(s, data)
			}
		}
		var res *toolset.Result
		var callErr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, callErr = l.a.conversation(ctx).Call(callCtx, l.t.Name, raw, hooks)
		}()
		for {
			select {
			case <-feed.ready:
				if piece := feed.take(); piece != "" && !yield(piece, nil) {
					cancel()
					<-done
					return
				}
			case <-done:
				if callErr != nil {
					yield("", callErr)
					return
				}
				yield(res.ModelText(), nil)
				return
			}
		}
	}
}

// liveFeed gathers a call's output between two chunks, so a model slower
// than the command gets it in fewer, larger turns; LiveLimit bounds it.
type liveFeed struct {
	ready   chan struct{} // has a value when there is something to take
	mu      sync.Mutex
	pieces  []livePiece
	sent    int
	stopped bool
}

type livePiece struct {
	stream shellcap.Stream
	data   []byte
}

func newLiveFeed() *liveFeed { return &liveFeed{ready: make(chan struct{}, 1)} }

// add keeps data for the next chunk, up to LiveLimit in all.
func (f *liveFeed) add(s shellcap.Stream, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped || len(data) == 0 {
		return
	}
	if room := LiveLimit - f.sent; len(data) > room {
		data, f.stopped = data[:room], true
	}
	f.sent += len(data)
	switch n := len(f.pieces); {
	case len(data) == 0:
	case n > 0 && f.pieces[n-1].stream == s:
		f.pieces[n-1].data = append(f.pieces[n-1].data, data...)
	default:
		f.pieces = append(f.pieces, livePiece{stream: s, data: append([]byte(nil), data...)})
	}
	if f.stopped {
		f.pieces = append(f.pieces, livePiece{})
	}
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// take returns what arrived since the last chunk, as the model reads it.
func (f *liveFeed) take() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, p := range f.pieces {
		if p.stream == 0 {
			fmt.Fprintf(&b, "[live output stopped after %d bytes; the result follows when the command ends]\n", LiveLimit)
			continue
		}
		fmt.Fprintf(&b, "[%s so far, still running]\n%s", p.stream, p.data)
		if !strings.HasSuffix(string(p.data), "\n") {
			b.WriteByte('\n')
		}
	}
	f.pieces = nil
	return b.String()
}

// liveStreams reports whether the tool named name streams its output under
// Options.Live.
func liveStreams(name string) bool {
	return name == toolset.RunCommand || name == toolset.ShellTool
}
