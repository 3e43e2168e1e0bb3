package mcpserver

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
)

// Options configures a Server. Shell is required; everything else has a
// safe zero value.
type Options struct {
	// Shell runs the commands. Required.
	Shell *shellcap.Shell

	// Tools names the tools to offer. Nil offers every tool the server can
	// back. Naming a tool it cannot back is an error.
	Tools []string

	// Jobs runs background commands. Nil offers no job tools
	// (start_command, check_command, wait_command, send_input,
	// stop_command, list_commands, shell).
	Jobs *jobs.Manager

	// ForegroundTimeout, with Jobs set, makes run_command promote a command
	// still running after this long to a background job: the model gets
	// the output so far and the job's ID. Progress notifications carry the
	// command's output until the promotion, not after. Zero never
	// promotes.
	ForegroundTimeout time.Duration

	// Session configures the persistent bash session of the bash tool,
	// started on its first call. The zero value is session's default.
	Session session.Options

	// Instructions are sent to the client at initialization. Empty sends
	// only the environment snapshot, if any.
	Instructions string

	// Environment is the snapshot of the machine the commands run on
	// (see package envprobe). When set, it is added to the instructions and
	// offered as the resource shellcap://environment. Nil offers none.
	Environment *envprobe.Snapshot

	// Name and Version identify the server. Empty means "shellcap" and "devel".
	Name, Version string

	// Logger receives the server's logs. Nil discards them.
	Logger *slog.Logger
}

// ErrUnknownTool reports a tool name in Options.Tools that the server
// does not know or cannot back.
var ErrUnknownTool = errors.New("mcpserver: unknown tool")

// Server is an MCP server exposing shellcap's tools.
type Server struct {
	opts  Options
	mcp   *mcp.Server
	tools []string

	mu          sync.Mutex
	notices     []string // finished jobs not yet told to the model
	unsubscribe func()
	bash        bashSession
}

// New builds the server and registers its tools. A read-only workspace
// offers no command tools.
func New(opts Options) (*Server, error) {
	if opts.Shell == nil {
		return nil, errors.New("mcpserver: Options.Shell is required")
	}
	if opts.Name == "" {
		opts.Name = "shellcap"
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions(opts),
		Logger:       opts.Logger,
		HasTools:     true,
	})
	if opts.Environment != nil {
		s.addEnvironmentResource(opts.Environment)
	}
	available := s.available()
	tools := opts.Tools
	if tools == nil {
		tools = available
	}
	for _, name := range tools {
		if !slices.Contains(available, name) {
			if slices.Contains(AllTools, name) {
				return nil, fmt.Errorf("%w: %s is not available with this configuration", ErrUnknownTool, name)
			}
			return nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknownTool, name, strings.Join(AllTools, ", "))
		}
	}
	if opts.Shell.ReadOnly() {
		tools = nil
		opts.Logger.Warn("mcpserver: the workspace is read-only; no command tools are offered")
	}
	for _, name := range tools {
		s.register(name)
	}
	s.tools = tools
	if opts.Jobs != nil && len(tools) > 0 {
		s.unsubscribe = opts.Jobs.Subscribe(s.jobFinished)
	}
	return s, nil
}

// Close ends the bash tool's session and stops listening for job events.
// Jobs keep running.
func (s *Server) Close() error {
	if s.unsubscribe != nil {
		s.unsubscribe()
	}
	s.closeBash()
	return nil
}

// available lists the tools this configuration can back.
func (s *Server) available() []string {
	if s.opts.Jobs == nil {
		return []string{RunCommand, BashTool}
	}
	return []string{RunCommand, StartCommand, CheckCommand, WaitCommand, SendInput, StopCommand, ListCommands, ShellTool, BashTool}
}

func (s *Server) register(name string) {
	switch name {
	case RunCommand:
		s.mcp.AddTool(&mcp.Tool{
			Name:         RunCommand,
			Title:        "Run a shell command",
			Description:  runCommandDescription,
			InputSchema:  runCommandSchema,
			OutputSchema: resultSchema,
			Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, s.runCommand)
	case BashTool:
		s.registerBash()
	default:
		s.registerJobTool(name)
	}
}

// Tools lists the names of the tools offered.
func (s *Server) Tools() []string { return slices.Clone(s.tools) }

// MCP returns the underlying SDK server, to run on any transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }
