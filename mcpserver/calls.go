package mcpserver

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrShuttingDown refuses a tool call that arrives after CancelCalls.
var ErrShuttingDown = errors.New("mcpserver: the server is shutting down")

// trackCalls is the receiving middleware that ties every tool call to the
// server's lifetime, so CancelCalls can stop them all.
func (s *Server) trackCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		s.callMu.Lock()
		if s.base.Err() != nil {
			s.callMu.Unlock()
			return toolError("The server is shutting down; the command was not run."), nil
		}
		s.inflight++
		s.callMu.Unlock()
		defer func() {
			s.callMu.Lock()
			s.inflight--
			if s.inflight == 0 && s.base.Err() != nil {
				s.idleCalls.Broadcast()
			}
			s.callMu.Unlock()
		}()
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
	done := make(chan struct{})
	go func() {
		s.callMu.Lock()
		for s.inflight > 0 {
			s.idleCalls.Wait()
		}
		s.callMu.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
