package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

type runCommandArgs struct {
	Command        *string `json:"command"`
	TimeoutSeconds seconds `json:"timeout_seconds"`
}

func (s *Server) runCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args runCommandArgs
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	r := shellcap.Request{Command: command}
	timeout, err := args.TimeoutSeconds.duration("timeout_seconds", core.Of(s.opts.Shell).Settings.MaxTimeout, false)
	if err != nil { // refused like the Shell refuses: a result that did not run
		return s.commandResult(s.scopeOf(ctx, req.Session), s.refused(command, err)), nil
	}
	r.Timeout = timeout
	ctx, approval := s.withApproval(ctx, req, r.Command)
	p := newProgress(ctx, req)
	r.OnOutput = p.output
	if s.opts.Jobs != nil && s.opts.ForegroundTimeout > 0 {
		return s.runOrPromote(ctx, r, approval, p)
	}
	run := s.opts.Shell.Run
	if s.opts.Executor != nil {
		run = s.opts.Executor.Run
	}
	res, err := run(ctx, r)
	p.stop()
	if err != nil {
		return s.callError(err)
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	return s.commandResult(approval.scope, res), nil
}

// runOrPromote runs the command as a job that becomes a background command
// when it outlives the foreground timeout. Progress notifications carry its
// output until then; after a promotion the model checks the job instead.
func (s *Server) runOrPromote(ctx context.Context, r shellcap.Request, approval *approvalRound, p *progress) (*mcp.CallToolResult, error) {
	res, err := s.opts.Jobs.Run(ctx, r, s.opts.ForegroundTimeout)
	p.stop()
	if err != nil {
		return s.callError(err)
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	if res.Result != nil {
		return s.commandResult(approval.scope, res.Result), nil
	}
	s.ownJob(approval.scope, res.ID)
	out := s.textResult(approval.scope, res)
	out.StructuredContent = promoted{Command: r.Command, Promoted: true, ID: res.ID, Stdout: res.Stdout, Stderr: res.Stderr, Sandbox: res.Sandbox}
	return out, nil
}

// promoted is the structured result of a command that became a job.
type promoted struct {
	Command  string                `json:"command"`
	Promoted bool                  `json:"promoted"`
	ID       string                `json:"id"`
	Stdout   string                `json:"stdout"`
	Stderr   string                `json:"stderr"`
	Sandbox  *shellcap.Enforcement `json:"sandbox,omitempty"`
}

// refused is the result of a command refused before it ran.
func (s *Server) refused(command string, err error) *shellcap.Result {
	return &shellcap.Result{Command: command, Cwd: s.opts.Shell.Workspace(), Err: err}
}

// commandResult renders a shellcap result as a tool result: the model text
// (then any job-finished notices) and the structured result. Refusals are
// marked isError.
func (s *Server) commandResult(sc *scope, res *shellcap.Result) *mcp.CallToolResult {
	return toolResult(s.content(sc, res.Text()), res, res)
}
