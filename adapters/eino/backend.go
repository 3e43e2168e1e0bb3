package eino

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/shellcap/shellcap/toolset"
)

// ErrNoFiles reports a NewBackend without a file backend.
var ErrNoFiles = errors.New("eino: NewBackend needs a filesystem.Backend for the file tools")

// Backend is an Eino filesystem.ShellBackend: the file operations of the
// Backend it wraps, and Execute backed by shellcap's run_command, so
// Eino's filesystem middleware (adk/middlewares/filesystem) offers an
// execute tool that runs under the Shell's policy, limits and approvals.
type Backend struct {
	filesystem.Backend
	cfg *Config
}

var _ filesystem.ShellBackend = (*Backend)(nil)

// NewBackend wraps files (the file operations) with an Execute that runs
// commands through cfg's toolset. The toolset must offer run_command.
func NewBackend(files filesystem.Backend, cfg Config) (*Backend, error) {
	if files == nil {
		return nil, ErrNoFiles
	}
	if cfg.Toolset == nil {
		return nil, ErrNoToolset
	}
	if cfg.Toolset.Tool(toolset.RunCommand) == nil {
		return nil, errors.Join(toolset.ErrUnknownTool, errors.New("eino: the toolset does not offer run_command"))
	}
	return &Backend{Backend: files, cfg: &cfg}, nil
}

// Execute runs the command with run_command. Output is the toolset's
// model text (a refusal's reason included); ExitCode is set when the
// command ran; Truncated when output was cut. The error is an Eino
// interrupt when the policy asks for approval, or the context's.
func (b *Backend) Execute(ctx context.Context, in *filesystem.ExecuteRequest) (*filesystem.ExecuteResponse, error) {
	args, err := json.Marshal(map[string]string{"command": in.Command})
	if err != nil {
		return nil, err
	}
	res, err := call(ctx, b.cfg, toolset.RunCommand, args)
	if err != nil {
		return nil, err
	}
	out := &filesystem.ExecuteResponse{Output: res.ModelText()}
	if r := res.Run; r != nil && r.Err == nil {
		code := r.ExitCode
		out.ExitCode = &code
		out.Truncated = r.Truncated
	}
	return out, nil
}
