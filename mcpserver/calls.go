package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/toolset"
)

// trackCalls is the receiving middleware that ties every tool call to the
// server's lifetime, so CancelCalls can stop them all.
func (s *Server) trackCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && s.ts.Tool(r.Params.Name) == nil {
			// A protocol error, as the SDK would make it, but repeating
			// at most maxEcho characters of the name.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool " + toolset.Echo(r.Params.Name)}
		}
		s.calls.begin()
		defer s.calls.end()
		if s.base.Err() != nil {
			return toolError("The server is shutting down; the command was not run."), nil
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(s.base, cancel)
		defer stop()
		return next(ctx, method, req)
	}
}

// CancelCalls cancels every tool call in flight and refuses new ones: the
// commands they run are stopped as a cancelled call's are (SIGTERM to the
// process group, SIGKILL after the Shell's kill grace). It waits until
// the calls have returned or ctx ends. ListenAndServe, Serve and
// ServeStdio call it when their context ends.
func (s *Server) CancelCalls(ctx context.Context) error {
	s.stopCalls()
	return s.calls.wait(ctx)
}

// activity counts operations in progress and tells when none is.
type activity struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n is zero
}

func newActivity() *activity {
	a := &activity{idle: make(chan struct{})}
	close(a.idle)
	return a
}

func (a *activity) begin() {
	a.mu.Lock()
	if a.n == 0 {
		a.idle = make(chan struct{})
	}
	a.n++
	a.mu.Unlock()
}

func (a *activity) end() {
	a.mu.Lock()
	if a.n--; a.n == 0 {
		close(a.idle)
	}
	a.mu.Unlock()
}

// wait returns once nothing is in progress, or when ctx ends.
func (a *activity) wait(ctx context.Context) error {
	a.mu.Lock()
	idle := a.idle
	a.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
