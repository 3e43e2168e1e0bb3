package toolset

import (
	"context"
	"encoding/json"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

func (ts *Toolset) runCommand(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		Command        *string `json:"command"`
		TimeoutSeconds seconds `json:"timeout_seconds"`
	}
	if bad := decodeArgs(RunCommand, raw, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(RunCommand, args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	r := shellcap.Request{Command: command}
	timeout, err := args.TimeoutSeconds.duration("timeout_seconds", core.Of(ts.opts.Shell).Settings.MaxTimeout, false)
	if err != nil { // refused like the Shell refuses: a result that did not run
		return ts.commandResult(c, ts.refused(command, err)), nil
	}
	r.Timeout = timeout
	r.OnOutput = hooksOf(ctx).Output
	r.OnStart = hooksOf(ctx).OnStart
	if ts.opts.Jobs != nil && ts.opts.ForegroundTimeout > 0 {
		return ts.runOrPromote(ctx, c, r)
	}
	run := ts.opts.Shell.Run
	if ts.opts.Executor != nil {
		run = ts.opts.Executor.Run
	}
	res, err := run(ctx, r)
	if err != nil {
		return ts.callError(err)
	}
	return ts.commandResult(c, res), nil
}

// runOrPromote runs the command as a job that becomes a background command
// when it outlives the foreground timeout. Hooks.Output carries its output
// until then; after a promotion the model checks the job instead.
func (ts *Toolset) runOrPromote(ctx context.Context, c *Conversation, r shellcap.Request) (*Result, error) {
	res, err := ts.opts.Jobs.RunWithID(ctx, hooksOf(ctx).JobID, r, ts.opts.ForegroundTimeout)
	if err != nil {
		return ts.callError(err)
	}
	if res.Result != nil {
		return ts.commandResult(c, res.Result), nil
	}
	c.ownJob(res.ID)
	out := ts.textResult(c, res)
	out.Structured = promoted{Command: r.Command, Promoted: true, ID: res.ID, Stdout: res.Stdout, Stderr: res.Stderr, Sandbox: res.Sandbox}
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
func (ts *Toolset) refused(command string, err error) *shellcap.Result {
	return &shellcap.Result{Command: command, Cwd: ts.opts.Shell.Workspace(), Err: err}
}

// commandResult renders a shellcap result: the model text (then any
// job-finished notices) and the structured result. Refusals are errors.
func (ts *Toolset) commandResult(_ *Conversation, res *shellcap.Result) *Result {
	return withNotices(newResult(res.Text(), res, res))
}

// texter is every result a tool returns: model text plus JSON.
type texter interface{ Text() string }

// textResult renders a result: its text (then any job-finished notices of
// the conversation) and the result itself as structured content.
func (ts *Toolset) textResult(_ *Conversation, r texter) *Result {
	res := newResult(r.Text(), r, r)
	res.notices, res.reported = true, reported(r)
	return res
}

// hooksOf returns the hooks of the toolset call in ctx.
func hooksOf(ctx context.Context) Hooks {
	if st, _ := ctx.Value(callKey{}).(*call); st != nil {
		return st.hooks
	}
	return Hooks{}
}
