package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/toolset"
)

// Tool names. They and their argument names are a public contract; they
// are package toolset's.
const (
	RunCommand   = toolset.RunCommand
	StartCommand = toolset.StartCommand
	CheckCommand = toolset.CheckCommand
	WaitCommand  = toolset.WaitCommand
	SendInput    = toolset.SendInput
	StopCommand  = toolset.StopCommand
	ListCommands = toolset.ListCommands
	ShellTool    = toolset.ShellTool
	BashTool     = toolset.BashTool
)

// AllTools lists every tool name in the order they are offered.
var AllTools = toolset.AllTools

func ptr[T any](v T) *T { return &v }

// register offers one toolset tool on srv: its definition as it is, and
// a handler that binds the MCP call to the toolset's.
func (s *Server) register(srv *mcp.Server, t *toolset.Tool) {
	tool := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: annotations(t.Annotations),
	}
	if t.OutputSchema != nil {
		tool.OutputSchema = t.OutputSchema
	}
	srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(ctx, t, req)
	})
}

// annotations words a tool's hints as MCP does: a read-only tool is
// neither destructive nor idempotent.
func annotations(a toolset.Annotations) *mcp.ToolAnnotations {
	if a.ReadOnly {
		return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(a.OpenWorld)}
	}
	return &mcp.ToolAnnotations{DestructiveHint: ptr(a.Destructive), IdempotentHint: a.Idempotent, OpenWorldHint: ptr(a.OpenWorld)}
}

// call runs one tool call through the toolset: the session's
// conversation, progress notifications for output, approval by
// elicitation; the result becomes MCP content.
func (s *Server) call(ctx context.Context, t *toolset.Tool, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	conv := s.conversationOf(ctx, req.Session)
	p := newProgress(ctx, req)
	hooks := s.approvalHooks(req, conv)
	hooks.Output = p.output
	res, err := t.Call(withHeader(ctx, req), conv, req.Params.Arguments, hooks)
	p.stop()
	if err != nil {
		return nil, err
	}
	if res.Pending != nil {
		return s.inputRequest(conv, *res.Pending), nil
	}
	return toolResult(res), nil
}

// toolResult renders a toolset result: its text, then, in a block of its
// own, any notices; the structured result; isError as the toolset derived
// it (Result.IsError is the one place).
func toolResult(res *toolset.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Text}}, IsError: res.IsError}
	if res.Notices != "" {
		out.Content = append(out.Content, &mcp.TextContent{Text: res.Notices})
	}
	if res.Structured != nil {
		out.StructuredContent = res.Structured
	}
	return out
}

// toolError is the result of a call the server could not carry out.
func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}

// commandOf peeks at the command argument of a call, to redeem the
// round-trip state of an approval question about it.
func commandOf(raw json.RawMessage) (string, bool) {
	var args struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(raw, &args) != nil || args.Command == nil {
		return "", false
	}
	return *args.Command, true
}

func durationText(d time.Duration) string { return fmt.Sprintf("%gs", d.Seconds()) }
