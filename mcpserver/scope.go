package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A scope is what belongs to one MCP session: its bash shell, the notices
// of the jobs it started, the approvals its user chose to remember and the
// IDs of its jobs. Every session gets its own, so clients of one HTTP
// server never read each other's shell, notices or approvals. A scope ends
// with its session; its jobs keep running and stay reachable by ID.
type scope struct {
	key       string          // binds approval round trips to the session
	all       bool            // sees every job (stdio, or Options.ShareJobs)
	stateless bool            // a request of a stateless client: nothing is kept
	notices   []string        // finished jobs not yet told to the model
	approvals map[string]bool // remembered answers, by exact command
	jobs      map[string]bool // IDs of the jobs it started
	bash      string          // handle of its default bash shell
}

type statelessKey struct{}

// withStateless marks the context of a request served without a session.
func withStateless(ctx context.Context) context.Context {
	return context.WithValue(ctx, statelessKey{}, true)
}

// scopeOf returns the scope of the session a request came on, creating it
// on first use. Callers hold no lock.
func (s *Server) scopeOf(ctx context.Context, ss *mcp.ServerSession) *scope {
	if stateless, _ := ctx.Value(statelessKey{}).(bool); stateless || ss == nil {
		return &scope{key: "stateless", stateless: true, all: s.opts.ShareJobs}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sc, ok := s.scopes[ss]; ok {
		return sc
	}
	key := ss.ID()
	if key == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		key = "conn-" + hex.EncodeToString(b[:])
	}
	sc := &scope{key: key, all: s.opts.ShareJobs || s.stdio[ss], approvals: map[string]bool{}, jobs: map[string]bool{}}
	s.scopes[ss] = sc
	go func() {
		_ = ss.Wait()
		s.dropScope(ss)
	}()
	return sc
}

// dropScope releases what an ended session held: its bash shells.
func (s *Server) dropScope(ss *mcp.ServerSession) {
	s.mu.Lock()
	sc := s.scopes[ss]
	delete(s.scopes, ss)
	delete(s.stdio, ss)
	var shells []*bashShell
	if sc != nil {
		for h, b := range s.shells {
			if b.owner == sc {
				shells = append(shells, b)
				delete(s.shells, h)
			}
		}
	}
	s.mu.Unlock()
	for _, b := range shells {
		b.close()
	}
}

// remembered returns the answer the session's user asked to remember for
// command.
func (s *Server) remembered(sc *scope, command string) (approved, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	approved, known = sc.approvals[command]
	return approved, known
}

func (s *Server) remember(sc *scope, command string, approved bool) {
	if sc.stateless {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc.approvals[command] = approved
}

// ownJob records that the session started job id.
func (s *Server) ownJob(sc *scope, id string) {
	if id == "" || sc.stateless {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc.jobs[id] = true
	if text, ok := s.unclaimed[id]; ok { // it has already finished
		delete(s.unclaimed, id)
		if !sc.all && len(sc.notices) < maxNotices {
			sc.notices = append(sc.notices, text)
		}
		return
	}
	s.owners[id] = sc
}
