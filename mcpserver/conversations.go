package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/toolset"
)

// Each MCP session is one toolset conversation: its bash shell, the
// notices of the jobs it started, the approvals its user chose to
// remember, its job list. Clients of one HTTP server never read each
// other's. A conversation ends with its session; its jobs keep running
// and stay reachable by ID.

type statelessKey struct{}

// withStateless marks the context of a request served without a session.
func withStateless(ctx context.Context) context.Context {
	return context.WithValue(ctx, statelessKey{}, true)
}

// conversationOf returns the conversation of the session a request came
// on, creating it on first use; nil (a stateless call) for a request
// served without a session.
func (s *Server) conversationOf(ctx context.Context, ss *mcp.ServerSession) *toolset.Conversation {
	if stateless, _ := ctx.Value(statelessKey{}).(bool); stateless || ss == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.convs[ss]; ok {
		return c
	}
	id := ss.ID()
	if id == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		id = "conn-" + hex.EncodeToString(b[:])
	}
	c := s.ts.Conversation(id)
	if s.stdio[ss] {
		c.SeeAllJobs()
	}
	s.convs[ss] = c
	go func() {
		_ = ss.Wait()
		s.dropConversation(ss)
	}()
	return c
}

// dropConversation ends the conversation of an ended session.
func (s *Server) dropConversation(ss *mcp.ServerSession) {
	s.mu.Lock()
	c := s.convs[ss]
	delete(s.convs, ss)
	delete(s.stdio, ss)
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
}
