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
// session's finished background commands (which it clears). A notice
// about a job in reported (one the result itself reports finished) is
// dropped: the result already says it. Each notice is its first line in
// brackets, then the end of the job's output.
func (s *Server) content(sc *scope, text string, reported ...string) []mcp.Content {
	out := []mcp.Content{&mcp.TextContent{Text: text}}
	s.mu.Lock()
	notices := sc.notices
	sc.notices = nil
	s.mu.Unlock()
	var blocks []string
	for _, n := range notices {
		first, rest, _ := strings.Cut(n, "\n")
		if aboutAny(first, reported) {
			continue
		}
		block := "[" + strings.TrimSuffix(strings.TrimPrefix(first, "["), "]") + "]"
		if rest != "" {
			block += "\n" + rest
		}
		blocks = append(blocks, block)
	}
	if len(blocks) > 0 {
		out = append(out, &mcp.TextContent{Text: strings.Join(blocks, "\n")})
	}
	return out
}

// aboutAny reports whether a notice's first line names one of the jobs.
func aboutAny(first string, ids []string) bool {
	for _, id := range ids {
		if id != "" && strings.Contains(first, "(ID: "+id+")") {
			return true
		}
	}
	return false
}

// reported returns the ID of the job a tool result reports finished (a
// check, wait or stop of it, or a shell tool call during which it ended),
// for content to drop that job's notice; nil for any other result.
func reported(r any) []string {
	switch r := r.(type) {
	case *jobs.JobResult:
		if r.Err == nil && r.Status == jobs.StatusFinished {
			return []string{r.ID}
		}
	case *jobs.ShellResult:
		if r.Err == nil && r.Finished {
			return []string{r.ID}
		}
	}
	return nil
}

// idle is how long a shell of a sessionless client is kept unused.
func (s *Server) idle() time.Duration {
	if s.idleTimeout > 0 {
		return s.idleTimeout
	}
	return 30 * time.Minute
}
