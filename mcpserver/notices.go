package mcpserver

import (
	"strings"

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

// takeNotices returns the queued notices as trailing lines and clears them.
func (s *Server) takeNotices() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.notices) == 0 {
		return ""
	}
	var b strings.Builder
	for _, n := range s.notices {
		b.WriteString("\n[" + strings.TrimSuffix(strings.TrimPrefix(n, "["), "]") + "]")
	}
	s.notices = nil
	return b.String()
}
