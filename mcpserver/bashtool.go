package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/session"
)

const bashDescription = `Run a command in a persistent bash session: variables, functions, cd and export carry over from one call to the next, as in a terminal.

Commands read end-of-file from stdin, so interactive programs cannot be used. A command that runs past the timeout is interrupted; the session and its state survive. If the shell exits (exit, exec), it is restarted with the working directory and exported variables restored, and the result says so. Pass restart: true to start a fresh session. Output is labelled [stdout]/[stderr] with [exit code: N] on failure. Run long-lived servers with start_command instead.

Each MCP session has its own shell. A client without a session (stateless HTTP) gets a new shell and its session_id in the result; pass that session_id to keep using it.`

// bashSchema states the timeout range of the bash sessions: their own
// options', else the Shell's.
func (s *Server) bashSchema() map[string]any {
	st := core.Of(s.opts.Shell).Settings
	def, max := st.DefaultTimeout, s.bashMaxTimeout()
	if s.opts.Session.DefaultTimeout > 0 {
		def = s.opts.Session.DefaultTimeout
	}
	def = min(def, max)
	return object(map[string]any{
		"command":    str("The command to run. Required unless restart is true."),
		"restart":    boolean("Restart the bash session, discarding its state."),
		"session_id": str("The session_id of an earlier result, to use that shell. Omit it to use this MCP session's shell."),
		"timeout_seconds": map[string]any{"type": "number", "minimum": minTimeout.Seconds(), "maximum": max.Seconds(),
			"description": fmt.Sprintf("Seconds before the command is interrupted (the session survives). Default %s, at most %s.", durationText(def), durationText(max))},
	})
}

// bashMaxTimeout is the largest timeout of a bash session command: the
// sessions' own, else the Shell's.
func (s *Server) bashMaxTimeout() time.Duration {
	if s.opts.Session.MaxTimeout > 0 {
		return s.opts.Session.MaxTimeout
	}
	return core.Of(s.opts.Shell).Settings.MaxTimeout
}

// bashOutputSchema is the structured result of the bash tool: a command
// result plus the shell's handle.
var bashOutputSchema = func() map[string]any {
	props := map[string]any{}
	for k, v := range resultSchema["properties"].(map[string]any) {
		props[k] = v
	}
	props["restarted"] = map[string]any{"type": "boolean", "description": "the shell ended during the call and a new one was started"}
	props["session_id"] = map[string]any{"type": "string", "description": "the shell's handle, for the session_id argument"}
	return map[string]any{"type": "object", "properties": props}
}()

// maxHandleShells bounds the shells kept for clients without a session.
const maxHandleShells = 64

// bashShell is one persistent shell of the bash tool, started on its first
// command. A shell belongs to the MCP session that created it and ends
// with it; one created for a sessionless request has no owner and ends
// when idle too long. Any request naming its handle may use it.
type bashShell struct {
	handle string
	owner  *scope // nil: created for a stateless request

	mu       sync.Mutex
	sess     *session.Session
	lastUsed time.Time
	closed   bool
}

func (b *bashShell) get(ctx context.Context, s *Server) (*session.Session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastUsed = time.Now()
	if b.closed {
		return nil, session.ErrClosed
	}
	if b.sess == nil {
		sess, err := session.New(ctx, s.opts.Shell, s.opts.Session)
		if err != nil {
			return nil, err
		}
		b.sess = sess
	}
	return b.sess, nil
}

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
// the session's own (created on first use), else, for a stateless request,
// a new one.
func (s *Server) shellFor(sc *scope, handle *string) (*bashShell, *mcp.CallToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, toolError("The server is shutting down.")
	}
	if handle != nil {
		if b, ok := s.shells[*handle]; ok {
			return b, nil
		}
		return nil, toolError(fmt.Sprintf("Unknown session_id %s: no such bash session (it ended, or was never issued). Omit session_id to get a new shell.", echo(*handle)))
	}
	if !sc.stateless {
		if b, ok := s.shells[sc.bash]; ok {
			return b, nil
		}
	}
	var owned []*bashShell
	if sc.stateless {
		var stale []*bashShell
		for h, b := range s.shells {
			if b.owner == nil {
				if time.Since(b.idleSince()) > s.idle() {
					stale = append(stale, b)
					delete(s.shells, h)
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
			return nil, toolError(fmt.Sprintf("Too many bash sessions (%d) are open for clients without an MCP session; pass the session_id of one you have, or retry after one has been idle for %s.", maxHandleShells, durationText(s.idle())))
		}
	}
	var h [16]byte
	_, _ = rand.Read(h[:])
	b := &bashShell{handle: hex.EncodeToString(h[:]), lastUsed: time.Now()}
	if !sc.stateless {
		b.owner = sc
		sc.bash = b.handle
	}
	s.shells[b.handle] = b
	return b, nil
}

func (s *Server) registerBash(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{
		Name:         BashTool,
		Title:        "Persistent bash session",
		Description:  bashDescription,
		InputSchema:  s.bashSchema(),
		OutputSchema: bashOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.bashTool)
}

func (s *Server) bashTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Command        *string `json:"command"`
		Restart        bool    `json:"restart"`
		SessionID      *string `json:"session_id"`
		TimeoutSeconds seconds `json:"timeout_seconds"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	timeout, terr := args.TimeoutSeconds.duration("timeout_seconds", s.bashMaxTimeout(), false)
	if args.Command == nil && !args.Restart {
		return toolError(`Provide "command", or "restart": true.`), nil
	}
	sc := s.scopeOf(ctx, req.Session)
	b, bad := s.shellFor(sc, args.SessionID)
	if bad != nil {
		return bad, nil
	}
	if terr != nil { // refused as run_command refuses it, before anything runs
		out := bashResult{&session.Result{Result: *s.refused(deref(args.Command), terr)}, b.handle}
		return toolResult(s.content(sc, out.res.Text()+handleNote(sc, b)), out, out), nil
	}
	sess, err := b.get(ctx, s)
	if err != nil {
		return s.callError(fmt.Errorf("the bash session could not start (run_command may still work): %w", err))
	}
	if args.Restart {
		if err := sess.Restart(ctx); err != nil {
			return s.callError(err)
		}
		if args.Command == nil {
			return toolResult(s.content(sc, "The bash session was restarted."+handleNote(sc, b)), map[string]any{"session_id": b.handle}, nil), nil
		}
	}
	ctx, approval := s.withApproval(ctx, req, *args.Command)
	res, err := sess.Run(ctx, session.Request{Command: *args.Command, Timeout: timeout})
	if err != nil {
		return s.callError(err)
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	out := bashResult{res, b.handle}
	return toolResult(s.content(sc, res.Text()+handleNote(sc, b)), out, out), nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// handleNote tells a client without a session which shell it used.
func handleNote(sc *scope, b *bashShell) string {
	if !sc.stateless {
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
