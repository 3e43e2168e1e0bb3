package mcpserver

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/session"
)

const bashDescription = `Run a command in a persistent bash session: variables, functions, cd and export carry over from one call to the next, as in a terminal.

Commands read end-of-file from stdin, so interactive programs cannot be used. A command that runs past the timeout is interrupted; the session and its state survive. If the shell exits (exit, exec), it is restarted with the working directory and exported variables restored, and the result says so. Pass restart: true to start a fresh session. Output is labelled [stdout]/[stderr] with [exit code: N] on failure. Run long-lived servers with start_command instead.`

var bashSchema = object(map[string]any{
	"command": str("The command to run. Required unless restart is true."),
	"restart": boolean("Restart the bash session, discarding its state."),
})

// bashSession is the one persistent shell the bash tool talks to. It is
// the server's, not the MCP session's, so it survives reconnects.
type bashSession struct {
	mu   sync.Mutex
	sess *session.Session
}

func (s *Server) bashSession(ctx context.Context) (*session.Session, error) {
	s.bash.mu.Lock()
	defer s.bash.mu.Unlock()
	if s.bash.sess == nil {
		sess, err := session.New(ctx, s.opts.Shell, s.opts.Session)
		if err != nil {
			return nil, err
		}
		s.bash.sess = sess
	}
	return s.bash.sess, nil
}

func (s *Server) closeBash() {
	s.bash.mu.Lock()
	defer s.bash.mu.Unlock()
	if s.bash.sess != nil {
		s.bash.sess.Close()
		s.bash.sess = nil
	}
}

func (s *Server) registerBash() {
	s.mcp.AddTool(&mcp.Tool{
		Name:        BashTool,
		Title:       "Persistent bash session",
		Description: bashDescription,
		InputSchema: bashSchema,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.bashTool)
}

func (s *Server) bashTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Command *string `json:"command"`
		Restart bool    `json:"restart"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return toolError(err.Error()), nil
	}
	if args.Restart {
		sess, err := s.bashSession(ctx)
		if err != nil {
			return nil, err
		}
		if err := sess.Restart(ctx); err != nil {
			return nil, err
		}
		if args.Command == nil {
			return &mcp.CallToolResult{Content: s.content("The bash session was restarted.")}, nil
		}
	}
	if args.Command == nil {
		return toolError(`Provide "command", or "restart": true.`), nil
	}
	sess, err := s.bashSession(ctx)
	if err != nil {
		return nil, err
	}
	ctx, approval := withApproval(ctx, req, *args.Command)
	res, err := sess.Run(ctx, session.Request{Command: *args.Command})
	if err != nil {
		return nil, err
	}
	if ask := approval.inputRequest(*args.Command); ask != nil {
		return ask, nil
	}
	out := s.textResult(res)
	out.IsError = res.Err != nil
	return out, nil
}
