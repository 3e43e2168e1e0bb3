package toolset

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shellcap/shellcap/jobs"
)

// maxNotices bounds the finished-job notices kept for the next result;
// maxUnclaimed those of jobs whose conversation is not yet known.
const (
	maxNotices   = 20
	maxUnclaimed = 256
)

// A Conversation is what belongs to one conversation with the model (an
// MCP session, an agent framework's session or thread): its bash shell,
// the notices of the jobs it started, the approvals its user chose to
// remember and the IDs of its jobs. Conversations never read each
// other's shell, notices or approvals. Close ends it; its jobs keep
// running and stay reachable by ID.
type Conversation struct {
	ts        *Toolset
	id        string
	stateless bool // keeps nothing between calls

	// guarded by ts.mu
	all       bool            // sees every job
	closed    bool            // Close was called
	notices   []string        // finished jobs not yet told to the model
	approvals map[string]bool // remembered answers, by exact command
	jobs      map[string]bool // IDs of the jobs it started
	bash      string          // handle of its bash shell
	bashDir   string          // where its next bash shell starts (SetBashDir)
}

// Conversation returns the conversation named id, creating it on first
// use. The host chooses the IDs (an MCP session ID, a framework's session
// ID) and calls Close when the conversation ends. A closed conversation's
// ID names a new one.
func (ts *Toolset) Conversation(id string) *Conversation {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if c, ok := ts.conversations[id]; ok {
		return c
	}
	c := &Conversation{ts: ts, id: id, all: ts.opts.ShareJobs, approvals: map[string]bool{}, jobs: map[string]bool{}}
	ts.conversations[id] = c
	return c
}

// Stateless returns a conversation that keeps nothing between calls: for
// a host without sessions. Each bash call without session_id gets a new
// shell, named in the result, which later calls reach by session_id; it
// is closed after it was idle too long (see SetShellIdleTimeout).
func (ts *Toolset) Stateless() *Conversation {
	return &Conversation{ts: ts, id: "stateless", stateless: true, all: ts.opts.ShareJobs}
}

// ID returns the conversation's ID.
func (c *Conversation) ID() string { return c.id }

// SeeAllJobs makes list_commands of this conversation list every job and
// gives it the notices of jobs no open conversation started (a stdio MCP
// client, alone with its process). Call it before the first call.
func (c *Conversation) SeeAllJobs() {
	c.ts.mu.Lock()
	c.all = true
	c.ts.mu.Unlock()
}

// SetBashDir sets the directory the conversation's next bash shell starts
// in: its first one, or one started after its shell was closed (a shell
// rebuilt on another process, say, from the directory the previous one
// was in). A shell already running is not moved. When the new shell
// cannot enter dir the bash call is refused with the reason, and the
// shell after it starts in the workspace root. Empty starts in the
// workspace root; a stateless conversation ignores it.
func (c *Conversation) SetBashDir(dir string) {
	c.ts.mu.Lock()
	c.bashDir = dir
	c.ts.mu.Unlock()
}

// takeBashDir returns the directory set by SetBashDir and clears it.
func (c *Conversation) takeBashDir() string {
	if c == nil || c.stateless {
		return ""
	}
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	dir := c.bashDir
	c.bashDir = ""
	return dir
}

// Call runs the tool named name in this conversation; see [Tool.Call].
func (c *Conversation) Call(ctx context.Context, name string, args json.RawMessage, hooks Hooks) (*Result, error) {
	return c.ts.Call(ctx, c, name, args, hooks)
}

// Close ends the conversation: its bash shell is closed and its remembered
// approvals are forgotten. Its jobs keep running. Closing twice does
// nothing.
func (c *Conversation) Close() error {
	ts := c.ts
	ts.mu.Lock()
	if c.closed || c.stateless {
		ts.mu.Unlock()
		return nil
	}
	c.closed = true
	if ts.conversations[c.id] == c {
		delete(ts.conversations, c.id)
	}
	var shells []*bashShell
	for h, b := range ts.shells {
		if b.owner == c {
			shells = append(shells, b)
			delete(ts.shells, h)
		}
	}
	ts.mu.Unlock()
	for _, b := range shells {
		b.close()
	}
	if ts.opts.Remote != nil {
		return ts.opts.Remote.Close(c.id)
	}
	return nil
}

// remembered returns the answer the conversation's user asked to remember
// for command.
func (c *Conversation) remembered(command string) (approved, known bool) {
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	approved, known = c.approvals[command]
	return approved, known
}

func (c *Conversation) remember(command string, approved bool) {
	if c.stateless {
		return
	}
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	c.approvals[command] = approved
}

// ownJob records that the conversation started job id.
func (c *Conversation) ownJob(id string) {
	if id == "" || c.stateless {
		return
	}
	ts := c.ts
	ts.mu.Lock()
	defer ts.mu.Unlock()
	c.jobs[id] = true
	if text, ok := ts.unclaimed[id]; ok { // it has already finished
		delete(ts.unclaimed, id)
		if !c.all && len(c.notices) < maxNotices {
			c.notices = append(c.notices, text)
		}
		return
	}
	ts.owners[id] = c
}

// owns reports whether the conversation started job id.
func (c *Conversation) owns(id string) bool {
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	return c.jobs[id]
}

// seesAll reports whether the conversation sees every job.
func (c *Conversation) seesAll() bool {
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	return c.all
}

// jobFinished queues a notice for the model of the conversation that
// started the job: it comes with that conversation's next tool result, so
// the model learns that a background command ended even if it never
// checks. A job whose conversation has ended (or that no conversation of
// this toolset started) is told to the conversations that see every job.
func (ts *Toolset) jobFinished(e jobs.Event) {
	if e.Stopped {
		return // the model asked for it and read the result
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	owner, known := ts.owners[e.ID]
	delete(ts.owners, e.ID)
	if ts.told[e.ID] {
		delete(ts.told, e.ID) // a result already said it
		return
	}
	var to []*Conversation
	if owner != nil && !owner.closed {
		to = []*Conversation{owner}
	} else {
		for _, c := range ts.conversations {
			if c.all {
				to = append(to, c)
			}
		}
		if !known {
			// It may have ended before its start_command returned.
			if len(ts.unclaimed) >= maxUnclaimed {
				clear(ts.unclaimed)
			}
			ts.unclaimed[e.ID] = e.Text()
		}
	}
	for _, c := range to {
		if len(c.notices) == maxNotices {
			c.notices = c.notices[1:]
		}
		c.notices = append(c.notices, e.Text())
	}
}

// finish completes a result with the conversation's queued notices of
// finished background commands (which it clears). A notice about a job in
// reported (one the result itself reports finished) is dropped: the
// result already says it. Each notice is its first line in brackets, then
// the end of the job's output.
func (c *Conversation) finish(r *Result, reported ...string) *Result {
	c.ts.mu.Lock()
	notices := c.notices
	c.notices = nil
	for _, id := range reported {
		if id == "" {
			continue
		}
		if len(c.ts.told) >= maxUnclaimed {
			clear(c.ts.told)
		}
		c.ts.told[id] = true
	}
	c.ts.mu.Unlock()
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
	r.Notices = strings.Join(blocks, "\n")
	return r
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
// for finish to drop that job's notice; nil for any other result.
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
