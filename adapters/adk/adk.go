package adk

import (
	"encoding/json"
	"fmt"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/tool"
)

// Options configures the binding. The zero value drops streamed output and
// job events.
type Options struct {
	// Name is the ADK toolset's name; empty is "shellcap".
	Name string
	// Output receives a running command's output as it arrives
	// (run_command, shell), with the context of the tool call it belongs
	// to. It must not block for long. Nil drops it.
	Output func(ctx agent.Context, stream shellcap.Stream, data []byte)
	// Event receives the shell tool's job events. Nil drops them.
	Event func(ctx agent.Context, ev jobs.ShellEvent)
}

// Toolset is shellcap's tools as an ADK tool.Toolset. It is safe for
// concurrent use.
type Toolset struct {
	ts    *toolset.Toolset
	opts  Options
	tools []tool.Tool
}

var _ tool.Toolset = (*Toolset)(nil)

// New binds the toolset ts to ADK. It offers the tools ts offers.
func New(ts *toolset.Toolset, opts Options) *Toolset {
	if opts.Name == "" {
		opts.Name = "shellcap"
	}
	a := &Toolset{ts: ts, opts: opts}
	for _, t := range ts.Tools() {
		a.tools = append(a.tools, &functionTool{a: a, t: t})
	}
	return a
}

// Name implements tool.Toolset.
func (a *Toolset) Name() string { return a.opts.Name }

// Tools implements tool.Toolset: one function tool per toolset tool.
func (a *Toolset) Tools(agent.ReadonlyContext) ([]tool.Tool, error) {
	return a.tools, nil
}

// EndSession closes the conversation of an ADK session (its bash shell and
// remembered approvals); its jobs keep running. Call it when the session is
// deleted.
func (a *Toolset) EndSession(appName, userID, sessionID string) error {
	return a.ts.Conversation(ConversationID(appName, userID, sessionID)).Close()
}

// ConversationID is the toolset conversation ID of an ADK session: its app
// name, user ID and session ID, which together name it.
func ConversationID(appName, userID, sessionID string) string {
	b, _ := json.Marshal([]string{appName, userID, sessionID})
	return "adk:" + string(b)
}

// conversation is the conversation of the session ctx runs in.
func (a *Toolset) conversation(ctx agent.Context) *toolset.Conversation {
	return a.ts.Conversation(ConversationID(ctx.AppName(), ctx.UserID(), ctx.SessionID()))
}

// hooks are the toolset hooks of one call: output to Options, approvals
// through ADK's confirmation.
func (a *Toolset) hooks(ctx agent.Context) toolset.Hooks {
	h := toolset.Hooks{Interrupt: true}
	if a.opts.Output != nil {
		h.Output = func(s shellcap.Stream, data []byte) { a.opts.Output(ctx, s, data) }
	}
	if a.opts.Event != nil {
		h.Event = func(ev jobs.ShellEvent) { a.opts.Event(ctx, ev) }
	}
	return h
}

// errorText is a failure as the model reads it.
func errorText(format string, args ...any) map[string]any {
	return map[string]any{"error": fmt.Sprintf(format, args...)}
}
