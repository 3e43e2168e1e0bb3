package mcpserver

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/jobs"
)

// maxNotices bounds the finished-job notices kept for the next result.
const maxNotices = 20

// jobFinished queues a notice for the model: it is appended to the next
// tool result, so the model learns that a background command ended even
// if it never checks.
func (s *Server) jobFinished(e jobs.Event) {
	if e.Stopped {
		return // the model asked for it and read the result
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notices) == maxNotices {
		s.notices = s.notices[1:]
	}
	s.notices = append(s.notices, e.Text())
}

// content returns the tool result's content: text, exactly as the result
// renders it, then, in a block of its own, any queued notices of finished
// background commands (which it clears).
func (s *Server) content(text string) []mcp.Content {
	out := []mcp.Content{&mcp.TextContent{Text: text}}
	s.mu.Lock()
	notices := s.notices
	s.notices = nil
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
