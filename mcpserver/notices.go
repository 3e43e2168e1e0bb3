package mcpserver

import (
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/jobs"
)

// maxNotices bounds the finished-job notices kept for the next result;
// maxUnclaimed those of jobs whose session is not yet known.
const (
	maxNotices   = 20
	maxUnclaimed = 256
)

// jobFinished queues a notice for the model of the session that started
// the job: it is appended to that session's next tool result, so the model
// learns that a background command ended even if it never checks. A job
// whose session has ended (or that no session of this process started) is
// told to the sessions that see every job.
func (s *Server) jobFinished(e jobs.Event) {
	if e.Stopped {
		return // the model asked for it and read the result
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	owner, known := s.owners[e.ID]
	delete(s.owners, e.ID)
	var to []*scope
	if owner != nil && s.live(owner) {
		to = []*scope{owner}
	} else {
		for _, sc := range s.scopes {
			if sc.all {
				to = append(to, sc)
			}
		}
		if !known {
			// It may have ended before its start_command returned.
			if len(s.unclaimed) >= maxUnclaimed {
				clear(s.unclaimed)
			}
			s.unclaimed[e.ID] = e.Text()
		}
	}
	for _, sc := range to {
		if len(sc.notices) == maxNotices {
			sc.notices = sc.notices[1:]
		}
		sc.notices = append(sc.notices, e.Text())
	}
}

// live reports whether sc is the scope of a session still connected.
// Callers hold s.mu.
func (s *Server) live(sc *scope) bool {
	for _, v := range s.scopes {
		if v == sc {
			return true
		}
	}
	return false
}

// content returns the tool result's content: text, exactly as the result
// renders it, then, in a block of its own, any queued notices of the
// session's finished background commands (which it clears).
func (s *Server) content(sc *scope, text string) []mcp.Content {
	out := []mcp.Content{&mcp.TextContent{Text: text}}
	s.mu.Lock()
	notices := sc.notices
	sc.notices = nil
	s.mu.Unlock()
	if len(notices) > 0 {
		lines := make([]string, len(notices))
		for i, n := range notices {
			lines[i] = "[" + strings.TrimSuffix(strings.TrimPrefix(n, "["), "]") + "]"
		}
		out = append(out, &mcp.TextContent{Text: strings.Join(lines, "\n")})
	}
	return out
}

// idle is how long a shell of a sessionless client is kept unused.
func (s *Server) idle() time.Duration {
	if s.idleTimeout > 0 {
		return s.idleTimeout
	}
	return 30 * time.Minute
}
