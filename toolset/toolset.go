package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/session"
)

// Tool names. They and their argument names are a public contract.
const (
	RunCommand   = "run_command"
	StartCommand = "start_command"
	CheckCommand = "check_command"
	WaitCommand  = "wait_command"
	SendInput    = "send_input"
	StopCommand  = "stop_command"
	ListCommands = "list_commands"
	ShellTool    = "shell"
	BashTool     = "bash"
)

// AllTools lists every tool name in the order they are offered.
var AllTools = []string{RunCommand, StartCommand, CheckCommand, WaitCommand, SendInput, StopCommand, ListCommands, ShellTool, BashTool}

// Options configures a Toolset. Shell (or Remote) is required;
// everything else has a safe zero value.
type Options struct {
	// Shell runs the commands. Required unless Remote is set; with Remote
	// it only states the limits (timeouts) the tool definitions give, and
	// must be nil with Definitions. A DescribedRemote's definitions win
	// over it.
	Shell *shellcap.Shell

	// Remote, when set, runs every call elsewhere (see [Remote]): the
	// toolset offers the tools of Definitions (or of a DescribedRemote),
	// else every tool with their usual definitions (or those in Tools),
	// and forwards the calls; Jobs, Executor and ForegroundTimeout must be
	// unset. The usual definitions without a Shell state shellcap's
	// default timeouts (and Session's, when set). Nil runs the commands on
	// the Shell.
	Remote Remote

	// Definitions, with Remote, are the tools to offer and what the model
	// reads of them: those of the toolset where the commands run
	// ([Toolset.Definitions] there), so the model reads that toolset's
	// limits and is offered only the tools it backs. Non-nil, even empty,
	// offers exactly these (or those of them in Tools); each must name a
	// known tool, once. Nil takes a DescribedRemote's, else the usual
	// definitions (see Remote). Without Remote it must be nil.
	Definitions []Definition

	// Tools names the tools to offer. Nil offers every tool the toolset
	// can back. Naming a tool it cannot back is ErrUnknownTool.
	Tools []string

	// Jobs runs background commands. Nil offers no job tools
	// (start_command, check_command, wait_command, send_input,
	// stop_command, list_commands, shell).
	Jobs *jobs.Manager

	// ForegroundTimeout, with Jobs set, makes run_command promote a command
	// still running after this long to a background job: the model gets
	// the output so far and the job's ID. Hooks.Output carries the
	// command's output until the promotion, not after. Zero never
	// promotes.
	ForegroundTimeout time.Duration

	// Executor, when set, runs run_command's commands instead of
	// Shell.Run (a container.Executor, say). The other tools would run on
	// the host, so with an Executor only run_command is offered and
	// ForegroundTimeout must be zero. Nil runs on the Shell.
	Executor Executor

	// Session configures the persistent bash session of the bash tool,
	// started on a conversation's first bash call. The zero value is
	// session's default.
	Session session.Options

	// ShareJobs makes every conversation see every background job in
	// list_commands and receive the notices of jobs no open conversation
	// started. False (the default) shows a conversation only the jobs it
	// started; any conversation can still reach a job by its ID.
	ShareJobs bool
}

// Executor runs one command and reports what happened, as Shell.Run does.
// *container.Executor is one.
type Executor interface {
	Run(ctx context.Context, req shellcap.Request) (*shellcap.Result, error)
}

// ErrUnknownTool reports a tool name the toolset does not know or cannot
// back (in Options.Tools, or in a call).
var ErrUnknownTool = errors.New("toolset: unknown tool")

// Toolset is shellcap's tools, defined once, for any host: an MCP server,
// an agent framework, a provider SDK's tool runner. It is safe for
// concurrent use.
type Toolset struct {
	opts        Options
	defs        []Definition // a remote toolset's definitions; nil: the usual ones
	tools       []*Tool
	unsubscribe func()

	mu            sync.Mutex
	conversations map[string]*Conversation
	owners        map[string]*Conversation // job ID -> the conversation that started it
	shells        map[string]*bashShell    // bash shells by handle
	// unclaimed holds the notices of jobs that finished before the
	// conversation that started them was recorded.
	unclaimed map[string]string
	// told holds the IDs of jobs a result already reported finished
	// (check, wait, stop, the shell tool) before their finished event
	// arrived: the event, which the Manager delivers on its own time, is
	// then not told again.
	told   map[string]bool
	idle   time.Duration // how long an unowned bash shell is kept unused
	closed bool
}

// New builds the toolset. A read-only workspace offers no tools.
func New(opts Options) (*Toolset, error) {
	if opts.Shell == nil && opts.Remote == nil {
		return nil, errors.New("toolset: Options.Shell is required")
	}
	if opts.Remote != nil && (opts.Jobs != nil || opts.Executor != nil || opts.ForegroundTimeout != 0) {
		return nil, errRemoteOptions
	}
	if opts.Executor != nil && opts.ForegroundTimeout > 0 {
		return nil, errors.New("toolset: option ForegroundTimeout: needs run_command on the Shell: with an Executor a promoted command would continue on the host")
	}
	defs, err := opts.definitions()
	if err != nil {
		return nil, err
	}
	ts := &Toolset{
		opts:          opts,
		defs:          defs,
		conversations: map[string]*Conversation{},
		owners:        map[string]*Conversation{},
		shells:        map[string]*bashShell{},
		unclaimed:     map[string]string{},
		told:          map[string]bool{},
		idle:          30 * time.Minute,
	}
	available := ts.available()
	names := opts.Tools
	if names == nil {
		names = available
	}
	for _, name := range names {
		if !slices.Contains(available, name) {
			if slices.Contains(AllTools, name) {
				return nil, fmt.Errorf("%w: %s is not available with this configuration", ErrUnknownTool, name)
			}
			return nil, fmt.Errorf("%w: %q (known: %s)", ErrUnknownTool, name, strings.Join(AllTools, ", "))
		}
	}
	if opts.Shell != nil && opts.Remote == nil && opts.Shell.ReadOnly() {
		names = nil
	}
	for _, name := range names {
		if i := slices.IndexFunc(defs, func(d Definition) bool { return d.Name == name }); i >= 0 {
			ts.tools = append(ts.tools, ts.defined(defs[i]))
			continue
		}
		ts.tools = append(ts.tools, ts.define(name))
	}
	if opts.Jobs != nil && len(ts.tools) > 0 {
		ts.unsubscribe = opts.Jobs.Subscribe(ts.jobFinished)
	}
	return ts, nil
}

// available lists the tools this configuration can back.
func (ts *Toolset) available() []string {
	if ts.defs != nil {
		names := make([]string, len(ts.defs))
		for i, d := range ts.defs {
			names[i] = d.Name
		}
		return names
	}
	if ts.opts.Remote != nil {
		return slices.Clone(AllTools)
	}
	if ts.opts.Executor != nil {
		return []string{RunCommand}
	}
	if ts.opts.Jobs == nil {
		return []string{RunCommand, BashTool}
	}
	return slices.Clone(AllTools)
}

// Tools returns the tools offered, in order. A read-only workspace offers
// none.
func (ts *Toolset) Tools() []*Tool { return slices.Clone(ts.tools) }

// Tool returns the offered tool named name, or nil.
func (ts *Toolset) Tool(name string) *Tool {
	for _, t := range ts.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Shell returns the Shell the tools run on (nil for a remote toolset
// built without one).
func (ts *Toolset) Shell() *shellcap.Shell { return ts.opts.Shell }

// SetShellIdleTimeout sets how long a bash shell of a stateless call
// (see [Toolset.Stateless]) is kept unused before it is closed. Zero or
// less keeps the default, 30 minutes.
func (ts *Toolset) SetShellIdleTimeout(d time.Duration) {
	if d <= 0 {
		return
	}
	ts.mu.Lock()
	ts.idle = d
	ts.mu.Unlock()
}

// Call runs the tool named name in conversation c (nil: a stateless call,
// see [Toolset.Stateless]). An unknown tool is ErrUnknownTool; otherwise
// the error is non-nil only when ctx ended, and everything the model can
// act on is the Result.
func (ts *Toolset) Call(ctx context.Context, c *Conversation, name string, args json.RawMessage, hooks Hooks) (*Result, error) {
	t := ts.Tool(name)
	if t == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTool, Echo(name))
	}
	return t.Call(ctx, c, args, hooks)
}

// Close ends every bash shell and stops listening for job events. Jobs
// keep running.
func (ts *Toolset) Close() error {
	if ts.unsubscribe != nil {
		ts.unsubscribe()
	}
	ts.mu.Lock()
	ts.closed = true
	shells := ts.shells
	ts.shells = map[string]*bashShell{}
	ts.mu.Unlock()
	for _, b := range shells {
		b.close()
	}
	return nil
}
