package mcpserver

import (
	"context"
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

	// Executor, when set, runs run_command's commands instead of
	// Shell.Run: a container.Executor, say, configured to apply the
	// Shell's policy. The other tools would run on the host, so with an
	// Executor only run_command is offered (naming another in Tools is
	// ErrUnknownTool) and ForegroundTimeout must be zero. Nil runs on the
	// Shell.
	Executor Executor

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

	// ShareJobs makes every MCP session see every background job in
	// list_commands and receive the notices of jobs no live session
	// started. False (the default) shows a session only the jobs it
	// started; any session can still reach a job by its ID. A stdio client
	// is alone with its process and always sees every job.
	ShareJobs bool
}

// Executor runs one command and reports what happened, as Shell.Run does.
// *container.Executor is one.
type Executor interface {
	Run(ctx context.Context, req shellcap.Request) (*shellcap.Result, error)
}

// ErrUnknownTool reports a tool name in Options.Tools that the server
// does not know or cannot back.
var ErrUnknownTool = errors.New("mcpserver: unknown tool")

// Server is an MCP server exposing shellcap's tools.
type Server struct {
	opts  Options
	mcp   *mcp.Server
	tools []string

	stateless   *mcp.Server // the same tools for sessionless HTTP clients
	rounds      *roundTrips
	unsubscribe func()
	idleTimeout time.Duration // HTTPOptions.SessionIdleTimeout, once served

	base      context.Context // ends when CancelCalls is called
	stopCalls context.CancelFunc
	calls     *activity // tool calls in progress
	posts     *activity // HTTP requests other than event streams in progress

	mu     sync.Mutex
	scopes map[*mcp.ServerSession]*scope
	stdio  map[*mcp.ServerSession]bool
	owners map[string]*scope     // job ID -> the scope that started it
	shells map[string]*bashShell // bash shells by handle
	// unclaimed holds the notices of jobs that finished before the session
	// that started them was recorded.
	unclaimed map[string]string
	closed    bool
}

// New builds the server and registers its tools. A read-only workspace
// offers no command tools.
func New(opts Options) (*Server, error) {
	if opts.Shell == nil {
		return nil, errors.New("mcpserver: Options.Shell is required")
	}
	if opts.Executor != nil && opts.ForegroundTimeout > 0 {
		return nil, errors.New("mcpserver: option ForegroundTimeout: needs run_command on the Shell: with an Executor a promoted command would continue on the host")
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
	s := &Server{
		opts:      opts,
		rounds:    newRoundTrips(),
		scopes:    map[*mcp.ServerSession]*scope{},
		stdio:     map[*mcp.ServerSession]bool{},
		owners:    map[string]*scope{},
		shells:    map[string]*bashShell{},
		unclaimed: map[string]string{},
	}
	s.base, s.stopCalls = context.WithCancel(context.Background())
	s.calls, s.posts = newActivity(), newActivity()
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
	s.tools = tools
	s.mcp = s.newMCP(false)
	s.stateless = s.newMCP(true)
	if opts.Jobs != nil && len(tools) > 0 {
		s.unsubscribe = opts.Jobs.Subscribe(s.jobFinished)
	}
	return s, nil
}

// newMCP builds an SDK server offering the tools; stateless marks the
// requests of the one that serves sessionless HTTP clients.
func (s *Server) newMCP(stateless bool) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: s.opts.Name, Version: s.opts.Version}, &mcp.ServerOptions{
		Instructions: instructions(s.opts),
		Logger:       s.opts.Logger,
		HasTools:     true,
	})
	srv.AddReceivingMiddleware(s.trackCalls)
	if stateless {
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				return next(withStateless(ctx), method, req)
			}
		})
	}
	if s.opts.Environment != nil {
		addEnvironmentResource(srv, s.opts.Environment)
	}
	for _, name := range s.tools {
		s.register(srv, name)
	}
	return srv
}

// Close ends every bash shell and stops listening for job events. Jobs
// keep running.
func (s *Server) Close() error {
	if s.unsubscribe != nil {
		s.unsubscribe()
	}
	s.stopCalls()
	s.mu.Lock()
	s.closed = true
	shells := s.shells
	s.shells = map[string]*bashShell{}
	s.mu.Unlock()
	for _, b := range shells {
		b.close()
	}
	return nil
}

// available lists the tools this configuration can back.
func (s *Server) available() []string {
	if s.opts.Executor != nil {
		return []string{RunCommand}
	}
	if s.opts.Jobs == nil {
		return []string{RunCommand, BashTool}
	}
	return []string{RunCommand, StartCommand, CheckCommand, WaitCommand, SendInput, StopCommand, ListCommands, ShellTool, BashTool}
}

func (s *Server) register(srv *mcp.Server, name string) {
	switch name {
	case RunCommand:
		srv.AddTool(&mcp.Tool{
			Name:         RunCommand,
			Title:        "Run a shell command",
			Description:  runCommandDescription,
			InputSchema:  s.runCommandSchema(),
			OutputSchema: s.runCommandOutputSchema(),
			Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
		}, s.runCommand)
	case BashTool:
		s.registerBash(srv)
	default:
		s.registerJobTool(srv, name)
	}
}

// Tools lists the names of the tools offered.
func (s *Server) Tools() []string { return slices.Clone(s.tools) }

// MCP returns the underlying SDK server, to run on any transport. Each
// connection gets its own scope (see Options.ShareJobs). Prefer ServeStdio
// for stdio, whose transport survives malformed input and sees every job,
// and HTTPHandler for HTTP, which also serves 2026-07-28 clients.
func (s *Server) MCP() *mcp.Server { return s.mcp }
