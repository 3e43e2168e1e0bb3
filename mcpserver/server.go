package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
	"github.com/shellcap/shellcap/toolset"
)

// Options configures a Server. Shell (or Remote) is required; everything
// else has a safe zero value.
type Options struct {
	// Shell runs the commands. Required unless Remote is set; with Remote
	// it only states the limits the tool definitions give.
	Shell *shellcap.Shell

	// Remote, when set, runs every tool call elsewhere (toolset.Remote:
	// the temporal module's front door, say): the server offers the tools
	// with their usual definitions and forwards each call, with its MCP
	// session as the conversation; approvals are asked of the client as
	// for local commands. Jobs, Executor and ForegroundTimeout must be
	// unset. Nil runs the commands on the Shell.
	Remote toolset.Remote

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
type Executor = toolset.Executor

// ErrUnknownTool reports a tool name in Options.Tools that the server
// does not know or cannot back. It is toolset.ErrUnknownTool.
var ErrUnknownTool = toolset.ErrUnknownTool

// Server is an MCP server exposing shellcap's tools: a thin binding of
// package toolset's.
type Server struct {
	opts Options
	ts   *toolset.Toolset
	mcp  *mcp.Server

	stateless *mcp.Server // the same tools for sessionless HTTP clients
	rounds    *roundTrips

	base      context.Context // ends when CancelCalls is called
	stopCalls context.CancelFunc
	calls     *activity // tool calls in progress
	posts     *activity // HTTP requests other than event streams in progress

	mu    sync.Mutex
	convs map[*mcp.ServerSession]*toolset.Conversation
	stdio map[*mcp.ServerSession]bool
}

// New builds the server and registers its tools. A read-only workspace
// offers no command tools.
func New(opts Options) (*Server, error) {
	if opts.Shell == nil && opts.Remote == nil {
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
	ts, err := toolset.New(toolset.Options{
		Shell:             opts.Shell,
		Remote:            opts.Remote,
		Tools:             opts.Tools,
		Jobs:              opts.Jobs,
		ForegroundTimeout: opts.ForegroundTimeout,
		Executor:          opts.Executor,
		Session:           opts.Session,
		ShareJobs:         opts.ShareJobs,
	})
	if err != nil {
		return nil, err
	}
	if opts.Remote == nil && opts.Shell.ReadOnly() {
		opts.Logger.Warn("mcpserver: the workspace is read-only; no command tools are offered")
	}
	s := &Server{
		opts:   opts,
		ts:     ts,
		rounds: newRoundTrips(),
		convs:  map[*mcp.ServerSession]*toolset.Conversation{},
		stdio:  map[*mcp.ServerSession]bool{},
	}
	s.base, s.stopCalls = context.WithCancel(context.Background())
	s.calls, s.posts = newActivity(), newActivity()
	s.mcp = s.newMCP(false)
	s.stateless = s.newMCP(true)
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
	for _, t := range s.ts.Tools() {
		s.register(srv, t)
	}
	return srv
}

// Close ends every bash shell and stops listening for job events. Jobs
// keep running.
func (s *Server) Close() error {
	s.stopCalls()
	return s.ts.Close()
}

// Tools lists the names of the tools offered.
func (s *Server) Tools() []string {
	var names []string
	for _, t := range s.ts.Tools() {
		names = append(names, t.Name)
	}
	return names
}

// Toolset returns the toolset the server binds.
func (s *Server) Toolset() *toolset.Toolset { return s.ts }

// MCP returns the underlying SDK server, to run on any transport. Each
// connection gets its own scope (see Options.ShareJobs). Prefer ServeStdio
// for stdio, whose transport survives malformed input and sees every job,
// and HTTPHandler for HTTP, which also serves 2026-07-28 clients.
func (s *Server) MCP() *mcp.Server { return s.mcp }
