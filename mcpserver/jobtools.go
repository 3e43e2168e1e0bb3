package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// texter is every result a tool returns: model text plus JSON.
type texter interface{ Text() string }

// textResult renders a result: its text (then any job-finished notices of
// the session) and the result itself as structured content.
func (s *Server) textResult(sc *scope, r texter) *mcp.CallToolResult {
	return toolResult(s.content(sc, r.Text(), reported(r)...), r, r)
}

func (s *Server) registerJobTool(srv *mcp.Server, name string) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	switch name {
	case StartCommand:
		srv.AddTool(&mcp.Tool{
			Name: StartCommand, Title: "Start a background command",
			Description: `Start a long-running command in the background (e.g. a server or watcher) and return its ID at once.

The command keeps running after this call (and if the server restarts). Use check_command to see its output, wait_command to wait for it to finish, send_input to write to its stdin (start it with stdin: true), and stop_command to stop it and collect its final output. Its output is kept in bounded logs; a finished job is forgotten after a day.`,
			InputSchema: object(map[string]any{
				"command": str("The shell command line to run with bash -c."),
				"stdin":   boolean("Keep the command's stdin open as a pipe for send_input. Default false: stdin is at end-of-file."),
			}, "command"),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, s.startCommand)
	case CheckCommand:
		srv.AddTool(&mcp.Tool{
			Name: CheckCommand, Title: "Check a background command",
			Description: `Check the status and recent output of a background command, without waiting. The result ends with [status: running] or [status: finished] and, once known, [exit code: N]. With new_only, only the output since the last check is returned.`,
			InputSchema: object(map[string]any{
				"command_id": str("The ID start_command returned."),
				"new_only":   boolean("Return only output produced since the last check_command or wait_command of this job."),
			}, "command_id"),
			Annotations: readOnly,
		}, s.checkCommand)
	case WaitCommand:
		srv.AddTool(&mcp.Tool{
			Name: WaitCommand, Title: "Wait for a background command",
			Description: `Wait until a background command finishes or timeout_seconds pass, then report like check_command. Waiting longer does not stop the command; if it is still running afterwards, wait again, check later or stop it.`,
			InputSchema: object(map[string]any{
				"command_id":      str("The ID start_command returned."),
				"timeout_seconds": map[string]any{"type": "number", "minimum": minTimeout.Seconds(), "maximum": jobs.MaxWait.Seconds(), "description": "How long to wait at most, in seconds."},
			}, "command_id", "timeout_seconds"),
			Annotations: readOnly,
		}, s.waitCommand)
	case SendInput:
		srv.AddTool(&mcp.Tool{
			Name: SendInput, Title: "Send input to a background command",
			Description: `Write text to the stdin of a background command started with stdin: true. Include a trailing newline where the program expects a line. With eof, stdin is closed after the text, which many programs need before they finish.`,
			InputSchema: object(map[string]any{
				"command_id": str("The ID start_command returned."),
				"text":       str("The text to write."),
				"eof":        boolean("Close stdin after writing."),
			}, "command_id", "text"),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, s.sendInput)
	case StopCommand:
		srv.AddTool(&mcp.Tool{
			Name: StopCommand, Title: "Stop a background command",
			Description: `Stop a background command and return its final output. Its whole process group gets SIGTERM, then SIGKILL after a grace period; a command stopped by SIGTERM reports [exit code: 143]. The job is forgotten afterwards.`,
			InputSchema: object(map[string]any{
				"command_id": str("The ID start_command returned."),
			}, "command_id"),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)},
		}, s.stopCommand)
	case ListCommands:
		srv.AddTool(&mcp.Tool{
			Name: ListCommands, Title: "List background commands",
			Description: `List the background commands this session started (over stdio: every one), each with its ID, status, age and command line.`,
			InputSchema: object(map[string]any{}),
			Annotations: readOnly,
		}, s.listCommands)
	case ShellTool:
		shellDef, shellMax := s.opts.Jobs.ShellTimeouts()
		srv.AddTool(&mcp.Tool{
			Name: ShellTool, Title: "Run a command that keeps running",
			Description: fmt.Sprintf(`Run a command that keeps running after this call and after the agent run.

In foreground mode (the default) the call waits up to timeout seconds (default %s, at most %s) and returns the last 16,000 bytes of the combined output, then the handles: the PID and the exact kill command that stops the whole process tree, the log file and the status file (JSON with the exit code once it exits). If the command is still running when the call returns, read the log and status files later or stop it with the kill command. Background mode returns the handles at once.`, durationText(shellDef), durationText(shellMax)),
			InputSchema: object(map[string]any{
				"command": str("The shell command line to run with bash -c."),
				"mode":    map[string]any{"type": "string", "enum": []string{"foreground", "background"}, "default": "foreground", "description": "foreground waits for output; background returns at once."},
				"timeout": map[string]any{"type": "number", "minimum": minTimeout.Seconds(), "maximum": shellMax.Seconds(), "description": "Seconds a foreground call waits."},
			}, "command"),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, s.shellTool)
	}
}

func (s *Server) startCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Command *string `json:"command"`
		Stdin   bool    `json:"stdin"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	ctx, approval := s.withApproval(ctx, req, command)
	res, err := s.opts.Jobs.Start(ctx, jobs.StartRequest{Command: command, Stdin: args.Stdin})
	if err != nil {
		return s.callError(err)
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	s.ownJob(approval.scope, res.ID)
	return s.textResult(approval.scope, res), nil
}

// jobResult renders the result of an operation on a job; an unknown ID
// or an argument out of range is marked isError (resultError).
func (s *Server) jobResult(ctx context.Context, req *mcp.CallToolRequest, res texter) *mcp.CallToolResult {
	return s.textResult(s.scopeOf(ctx, req.Session), res)
}

type idArgs struct {
	CommandID *string `json:"command_id"`
}

// id returns the command_id argument. An over-long one is cut for the
// messages that repeat it: it names no job either way (an ID is 32
// characters).
func (a *idArgs) id() (string, *mcp.CallToolResult) {
	id, bad := required(a.CommandID, "command_id")
	return cut(id), bad
}

func (s *Server) checkCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		idArgs
		NewOnly bool `json:"new_only"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id()
	if bad != nil {
		return bad, nil
	}
	res, err := s.opts.Jobs.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: args.NewOnly})
	if err != nil {
		return s.callError(err)
	}
	return s.jobResult(ctx, req, res), nil
}

func (s *Server) waitCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		idArgs
		TimeoutSeconds seconds `json:"timeout_seconds"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id()
	if bad != nil {
		return bad, nil
	}
	timeout, err := args.TimeoutSeconds.duration("timeout_seconds", jobs.MaxWait, true)
	if err != nil {
		return toolError(err.Error()), nil
	}
	res, err := s.opts.Jobs.Wait(ctx, id, timeout)
	if err != nil {
		return s.callError(err)
	}
	return s.jobResult(ctx, req, res), nil
}

func (s *Server) sendInput(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		idArgs
		Text *string `json:"text"`
		EOF  bool    `json:"eof"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id()
	if bad != nil {
		return bad, nil
	}
	input, bad := required(args.Text, "text")
	if bad != nil {
		return bad, nil
	}
	res, err := s.opts.Jobs.Input(ctx, jobs.InputRequest{ID: id, Text: input, EOF: args.EOF})
	if err != nil {
		return s.callError(err)
	}
	return s.jobResult(ctx, req, res), nil
}

func (s *Server) stopCommand(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args idArgs
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	id, bad := args.id()
	if bad != nil {
		return bad, nil
	}
	res, err := s.opts.Jobs.Stop(ctx, jobs.StopRequest{ID: id})
	if err != nil {
		return s.callError(err)
	}
	return s.jobResult(ctx, req, res), nil
}

func (s *Server) listCommands(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct{}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	res, err := s.opts.Jobs.List(ctx)
	if err != nil {
		return s.callError(err)
	}
	sc := s.scopeOf(ctx, req.Session)
	if !sc.all {
		mine := *res
		mine.Jobs = []jobs.ListEntry{}
		s.mu.Lock()
		for _, j := range res.Jobs {
			if sc.jobs[j.ID] {
				mine.Jobs = append(mine.Jobs, j)
			}
		}
		s.mu.Unlock()
		res = &mine
	}
	return s.textResult(sc, res), nil
}

func (s *Server) shellTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Command *string `json:"command"`
		Mode    string  `json:"mode"`
		Timeout seconds `json:"timeout"`
	}
	if bad := decodeArgs(req, &args); bad != nil {
		return bad, nil
	}
	command, bad := required(args.Command, "command")
	if bad != nil {
		return bad, nil
	}
	r := jobs.ShellRequest{Command: command}
	switch args.Mode {
	case "", "foreground":
	case "background":
		r.Mode = jobs.Background
	default:
		return toolError(fmt.Sprintf(`mode must be "foreground" or "background" (got %s).`, echo(args.Mode))), nil
	}
	_, shellMax := s.opts.Jobs.ShellTimeouts()
	timeout, err := args.Timeout.duration("timeout", shellMax, false)
	if err != nil {
		return toolError(err.Error()), nil
	}
	r.Timeout = timeout
	p := newProgress(ctx, req)
	r.OnEvent = func(e jobs.ShellEvent) {
		if e.Kind == jobs.ShellOutput {
			p.output(shellcap.Stdout, []byte(e.Text))
		}
	}
	ctx, approval := s.withApproval(ctx, req, command)
	res, err := s.opts.Jobs.ShellTool(ctx, r)
	p.stop()
	if err != nil {
		return s.callError(err)
	}
	if ask := approval.inputRequest(); ask != nil {
		return ask, nil
	}
	s.ownJob(approval.scope, res.ID)
	return s.textResult(approval.scope, res), nil
}

func durationText(d time.Duration) string { return fmt.Sprintf("%gs", d.Seconds()) }

func object(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func boolean(desc string) map[string]any {
	return map[string]any{"type": "boolean", "description": desc}
}
