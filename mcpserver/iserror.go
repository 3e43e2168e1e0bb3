package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

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

// callError decides what becomes of an error an executor returned instead
// of a result (Shell.Run, a session, the job Manager): it is the one place
// that chooses between a tool result and a JSON-RPC error.
//
// A host-side failure the model can act on is a tool result with isError
// and a message saying what happened and what to do: a workspace that
// vanished, bash missing from the PATH, a closed Shell or session, too
// many open files, a sandbox that cannot start a command. Only a call
// that was cancelled (by the client, or by the server shutting down)
// stays a JSON-RPC error: no one is waiting to read a result.
func (s *Server) callError(err error) (*mcp.CallToolResult, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return toolError(s.hostMessage(err)), nil
}

// hostMessage words a host-side failure for the model.
func (s *Server) hostMessage(err error) string {
	ws := s.opts.Shell.Workspace()
	switch {
	case errors.Is(err, shellcap.ErrWorkspaceGone) || workspaceGone(ws):
		return fmt.Sprintf("The server could not carry out this call: the workspace %s no longer exists or is not a directory (it was removed or replaced while the server runs). No command can run until it is restored; ask the user to recreate it or restart the server on an existing directory.", ws)
	case errors.Is(err, shellcap.ErrReadOnlyWorkspace):
		return "The server could not carry out this call: the workspace is read-only, so commands cannot be run here."
	case errors.Is(err, shellcap.ErrClosed), errors.Is(err, jobs.ErrClosed):
		return "The server could not carry out this call: the server is shutting down."
	case errors.Is(err, session.ErrClosed):
		return "The server could not carry out this call: this bash session is closed (its MCP session ended or the server is shutting down). Reconnect, or use run_command."
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "The server could not carry out this call: the server has too many open files. Stop background commands you no longer need (list_commands, stop_command) and retry."
	case errors.Is(err, shellcap.ErrSandbox):
		return fmt.Sprintf("The server could not carry out this call: the sandbox could not start it (%v). Retry; if it fails again, tell the user.", err)
	}
	return fmt.Sprintf("The server could not carry out this call: %v", err)
}

// workspaceGone reports that the workspace directory is missing or no
// longer a directory.
func workspaceGone(ws string) bool {
	fi, err := os.Stat(ws)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	return !fi.IsDir()
}
