package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

func (ts *Toolset) startCommand(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		Command *string `json:"command"`
		Stdin   bool    `json:"stdin"`
	}
	if bad := decodeArgs(StartCommand, raw, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(StartCommand, args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	res, err := ts.opts.Jobs.Start(ctx, jobs.StartRequest{Command: command, Stdin: args.Stdin, ID: hooksOf(ctx).JobID})
	if err != nil {
		return ts.callError(err)
	}
	c.ownJob(res.ID)
	return ts.textResult(c, res), nil
}

type idArgs struct {
	CommandID *string `json:"command_id"`
}

// id returns the command_id argument. An over-long one is cut for the
// messages that repeat it: it names no job either way (an ID is 32
// characters).
func (a *idArgs) id(tool string) (string, *Result) {
	id, bad := required(tool, a.CommandID, "command_id")
	return cut(id), bad
}

func (ts *Toolset) checkCommand(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		idArgs
		NewOnly bool `json:"new_only"`
	}
	if bad := decodeArgs(CheckCommand, raw, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id(CheckCommand)
	if bad != nil {
		return bad, nil
	}
	res, err := ts.opts.Jobs.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: args.NewOnly})
	if err != nil {
		return ts.callError(err)
	}
	return ts.textResult(c, res), nil
}

func (ts *Toolset) waitCommand(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		idArgs
		TimeoutSeconds seconds `json:"timeout_seconds"`
	}
	if bad := decodeArgs(WaitCommand, raw, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id(WaitCommand)
	if bad != nil {
		return bad, nil
	}
	timeout, err := args.TimeoutSeconds.duration("timeout_seconds", jobs.MaxWait, true)
	var missing *argError
	if errors.As(err, &missing) {
		return invalid(WaitCommand, missing.msg), nil
	}
	if err != nil {
		return errorResult(err.Error()), nil
	}
	res, err := ts.opts.Jobs.Wait(ctx, id, timeout)
	if err != nil {
		return ts.callError(err)
	}
	return ts.textResult(c, res), nil
}

func (ts *Toolset) sendInput(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		idArgs
		Text *string `json:"text"`
		EOF  bool    `json:"eof"`
	}
	if bad := decodeArgs(SendInput, raw, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id(SendInput)
	if bad != nil {
		return bad, nil
	}
	input, bad := required(SendInput, args.Text, "text")
	if bad != nil {
		return bad, nil
	}
	res, err := ts.opts.Jobs.Input(ctx, jobs.InputRequest{ID: id, Text: input, EOF: args.EOF})
	if err != nil {
		return ts.callError(err)
	}
	return ts.textResult(c, res), nil
}

func (ts *Toolset) stopCommand(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args idArgs
	if bad := decodeArgs(StopCommand, raw, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id(StopCommand)
	if bad != nil {
		return bad, nil
	}
	res, err := ts.opts.Jobs.Stop(ctx, jobs.StopRequest{ID: id})
	if err != nil {
		return ts.callError(err)
	}
	return ts.textResult(c, res), nil
}

func (ts *Toolset) listCommands(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct{}
	if bad := decodeArgs(ListCommands, raw, &args); bad != nil {
		return bad, nil
	}
	res, err := ts.opts.Jobs.List(ctx)
	if err != nil {
		return ts.callError(err)
	}
	if !c.seesAll() {
		mine := *res
		mine.Jobs = []jobs.ListEntry{}
		for _, j := range res.Jobs {
			if c.owns(j.ID) {
				mine.Jobs = append(mine.Jobs, j)
			}
		}
		res = &mine
	}
	return ts.textResult(c, res), nil
}

func (ts *Toolset) shellTool(ctx context.Context, c *Conversation, raw json.RawMessage) (*Result, error) {
	var args struct {
		Command *string `json:"command"`
		Mode    *string `json:"mode"`
		Timeout seconds `json:"timeout"`
	}
	if bad := decodeArgs(ShellTool, raw, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(ShellTool, args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	r := jobs.ShellRequest{Command: command, ID: hooksOf(ctx).JobID}
	switch mode := deref(args.Mode); mode {
	case "", "foreground":
	case "background":
		r.Mode = jobs.Background
	default:
		return invalid(ShellTool, fmt.Sprintf(`mode must be "foreground" or "background" (got %s)`, Echo(mode))), nil
	}
	_, shellMax := ts.opts.Jobs.ShellTimeouts()
	timeout, err := args.Timeout.duration("timeout", shellMax, false)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	r.Timeout = timeout
	h := hooksOf(ctx)
	r.OnEvent = func(e jobs.ShellEvent) {
		if e.Kind == jobs.ShellOutput && h.Output != nil {
			h.Output(shellcap.Stdout, []byte(e.Text))
		}
		if h.Event != nil {
			h.Event(e)
		}
	}
	res, err := ts.opts.Jobs.ShellTool(ctx, r)
	if err != nil {
		return ts.callError(err)
	}
	c.ownJob(res.ID)
	return ts.textResult(c, res), nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
