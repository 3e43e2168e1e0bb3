package toolset

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shellcap/shellcap/session"
)

// maxHandleShells bounds the shells kept for stateless calls.
const maxHandleShells = 64

// bashShell is one persistent shell of the bash tool, started on its first
// command. A shell belongs to the conversation that created it and ends
// with it; one created for a stateless call has no owner and ends when
// idle too long. Any call naming its handle may use it.
type bashShell struct {
	handle string
	owner  *Conversation // nil: created for a stateless call

	mu       sync.Mutex
	sess     *session.Session
	lastUsed time.Time
	closed   bool
}

func (b *bashShell) get(ctx context.Context, ts *Toolset) (*session.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastUsed = time.Now()
	if b.closed {
		return nil, session.ErrClosed
	}
	if b.sess == nil {
		sess, err := session.New(ctx, ts.opts.Shell, ts.opts.Session)
		if err != nil {
			return nil, err
		}
		if dir := b.owner.takeBashDir(); dir != "" {
			if err := enter(ctx, sess, dir); err != nil {
				sess.Close()
				return nil, err
			}
		}
		b.sess = sess
	}
	return b.sess, nil
}

// enter takes a new session to dir (Conversation.SetBashDir).
func enter(ctx context.Context, sess *session.Session, dir string) error {
	res, err := sess.Run(ctx, session.Request{Command: "cd -- " + shellQuote(dir)})
	switch {
	case err != nil:
		return err
	case res.Err != nil:
		return fmt.Errorf("the new shell could not return to its directory %s (%w); the next bash call starts in the workspace root", dir, res.Err)
	case res.ExitCode != 0:
		return fmt.Errorf("the new shell could not return to its directory %s (%s); the next bash call starts in the workspace root", dir, strings.TrimSpace(res.Stderr))
	}
	return nil
}

// shellQuote quotes s as one bash word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (b *bashShell) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.sess != nil {
		b.sess.Close()
		b.sess = nil
	}
}

func (b *bashShell) idleSince() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lastUsed
}

// shellFor finds the shell a call addresses: the one named by handle, else
// the conversation's own (created on first use), else, for a stateless
// call, a new one.
func (ts *Toolset) shellFor(c *Conversation, handle *string) (*bashShell, *Result) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return nil, errorResult("The server is shutting down.")
	}
	if handle != nil {
		if b, ok := ts.shells[*handle]; ok {
			return b, nil
		}
		return nil, errorResult(fmt.Sprintf("Unknown session_id %s: no such bash session (it ended, or was never issued). Omit session_id to get a new shell.", Echo(*handle)))
	}
	if !c.stateless {
		if c.closed {
			return nil, errorResult("The server could not carry out this call: this bash session is closed (its MCP session ended or the server is shutting down). Reconnect, or use run_command.")
		}
		if b, ok := ts.shells[c.bash]; ok {
			return b, nil
		}
	}
	if c.stateless {
		var stale, owned []*bashShell
		for h, b := range ts.shells {
			if b.owner == nil {
				if time.Since(b.idleSince()) > ts.idle {
					stale = append(stale, b)
					delete(ts.shells, h)
				} else {
					owned = append(owned, b)
				}
			}
		}
		go func() {
			for _, b := range stale {
				b.close()
			}
		}()
		if len(owned) >= maxHandleShells {
			return nil, errorResult(fmt.Sprintf("Too many bash sessions (%d) are open for clients without an MCP session; pass the session_id of one you have, or retry after one has been idle for %s.", maxHandleShells, durationText(ts.idle)))
		}
	}
	var h [16]byte
	_, _ = rand.Read(h[:])
	b := &bashShell{handle: hex.EncodeToString(h[:]), lastUsed: time.Now()}
	if !c.stateless {
		b.owner = c
		c.bash = b.handle
	}
	ts.shells[b.handle] = b
	return b, nil
}

func (ts *Toolset) bashTool(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		Command        *string `json:"command"`
		Restart        bool    `json:"restart"`
		SessionID      *string `json:"session_id"`
		TimeoutSeconds seconds `json:"timeout_seconds"`
	}
	if bad := decodeArgs(BashTool, raw, &args); bad != nil {
		return bad, nil
	}
	timeout, terr := args.TimeoutSeconds.duration("timeout_seconds", ts.bashMaxTimeout(), false)
	if args.Command == nil && !args.Restart {
		return errorResult(`Provide "command", or "restart": true.`), nil
	}
	b, bad := ts.shellFor(c, args.SessionID)
	if bad != nil {
		return bad, nil
	}
	if terr != nil { // refused as run_command refuses it, before anything runs
		out := bashResult{&session.Result{Result: *ts.refused(deref(args.Command), terr)}, b.handle}
		return withNotices(newResult(out.res.Text()+handleNote(c, b), out, out)), nil
	}
	sess, err := b.get(ctx, ts)
	if err != nil {
		return ts.callError(fmt.Errorf("the bash session could not start (run_command may still work): %w", err))
	}
	if args.Restart {
		if err := sess.Restart(ctx); err != nil {
			return ts.callError(err)
		}
		if args.Command == nil {
			return withNotices(newResult("The bash session was restarted."+handleNote(c, b), map[string]any{"session_id": b.handle}, nil)), nil
		}
	}
	res, err := sess.Run(ctx, session.Request{Command: *args.Command, Timeout: timeout})
	if err != nil {
		return ts.callError(err)
	}
	out := bashResult{res, b.handle}
	return withNotices(newResult(res.Text()+handleNote(c, b), out, out)), nil
}

// withNotices marks r to come with the conversation's notices.
func withNotices(r *Result) *Result {
	r.notices = true
	return r
}

// handleNote tells a stateless caller which shell it used.
func handleNote(c *Conversation, b *bashShell) string {
	if !c.stateless {
		return ""
	}
	return "\n[bash session_id: " + b.handle + " (pass it as session_id to keep this shell)]"
}

// bashResult is a session result with the shell's handle.
type bashResult struct {
	res    *session.Result
	handle string
}

func (r bashResult) MarshalJSON() ([]byte, error) {
	base, err := r.res.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(base, &fields); err != nil {
		return nil, err
	}
	fields["session_id"], _ = json.Marshal(r.handle)
	return json.Marshal(fields)
}
