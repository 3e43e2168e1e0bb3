package mcpserver

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
)

// resultError is the error a tool's result reports, nil when the
// operation did what was asked (a command that ran and exited non-zero
// did: its exit code is in the text): a refused or unrunnable command
// (Result.Err), an unknown job ID or an argument out of range (the job
// results' error), or a bad call (an error).
func resultError(res any) error {
	switch r := res.(type) {
	case nil:
		return nil
	case error:
		return r
	case *shellcap.Result:
		return r.Err
	case *session.Result:
		return r.Err
	case bashResult:
		return r.res.Err
	case *jobs.StartResult:
		return r.Err
	case *jobs.JobResult:
		return r.Err
	case *jobs.InputResult:
		return r.Err
	case *jobs.ShellResult:
		return r.Err
	}
	return nil
}

// toolResult is every tool result the server sends: the content, the
// structured content, and isError derived from res by resultError. It is
// the one place that sets IsError.
func toolResult(content []mcp.Content, structured any, res any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: content, StructuredContent: structured, IsError: resultError(res) != nil}
}

// toolError is the result of a call that could not be carried out: a bad
// argument, an unknown session, a server shutting down.
func toolError(msg string) *mcp.CallToolResult {
	return toolResult([]mcp.Content{&mcp.TextContent{Text: msg}}, nil, errors.New(msg))
}
