package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
)

type runCommandArgs struct {
	Command        *string  `json:"command"`
	TimeoutSeconds *float64 `json:"timeout_seconds"`
}

func (s *Server) runCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args runCommandArgs
	if err := decodeArgs(req, &args); err != nil {
		return toolError(err.Error()), nil
	}
	if args.Command == nil {
		return toolError(`missing required argument "command"`), nil
	}
	r := shellcap.Request{Command: *args.Command}
	var bad *mcp.CallToolResult
	if r.Timeout, bad = timeoutArg(args.TimeoutSeconds); bad != nil {
		return bad, nil
	}
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
		return nil, err
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	return s.commandResult(approval.scope, res), nil
}

// timeoutArg converts the timeout_seconds argument of run_command and bash;
// absent is zero (the default). A value that is no positive number of
// seconds is refused here; one outside the allowed range is refused by the
// Shell with the message that states the range.
func timeoutArg(t *float64) (time.Duration, *mcp.CallToolResult) {
	if t == nil {
		return 0, nil
	}
	if *t <= 0 || math.IsNaN(*t) || math.IsInf(*t, 0) || *t > 1e6 {
		return 0, toolError("timeout_seconds must be a positive number of seconds.")
	}
	return time.Duration(*t * float64(time.Second)), nil
}

// runOrPromote runs the command as a job that becomes a background command
// when it outlives the foreground timeout. Progress notifications carry its
// output until then; after a promotion the model checks the job instead.
func (s *Server) runOrPromote(ctx context.Context, r shellcap.Request, approval *approvalRound, p *progress) (*mcp.CallToolResult, error) {
	res, err := s.opts.Jobs.Run(ctx, r, s.opts.ForegroundTimeout)
	p.stop()
	if err != nil {
		return nil, err
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

// commandResult renders a shellcap result as a tool result: the model text
// (then any job-finished notices) and the structured result. Refusals are
// marked isError.
func (s *Server) commandResult(sc *scope, res *shellcap.Result) *mcp.CallToolResult {
	return toolResult(s.content(sc, res.Text()), res, res)
}

// decodeArgs unmarshals the tool arguments strictly: unknown arguments are
// errors the model can read.
func decodeArgs(req *mcp.CallToolRequest, v any) error {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid arguments for %s: %v", req.Params.Name, err)
	}
	return nil
}
