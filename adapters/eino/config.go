package eino

import (
	"context"
	"errors"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// ErrNoToolset reports a Config without a Toolset.
var ErrNoToolset = errors.New("eino: Config.Toolset is required")

// Config binds a toolset to Eino. Toolset is required; everything else has
// a safe zero value.
type Config struct {
	// Toolset provides the tools. Required.
	Toolset *toolset.Toolset

	// Conversation is the conversation every call belongs to (its bash
	// session, its jobs, its remembered approvals). Nil uses
	// Toolset.Stateless(), which keeps nothing between calls.
	Conversation *toolset.Conversation

	// ConversationFor, when set, picks the conversation of a call from
	// its context (an agent serving many sessions, say); a nil result
	// falls back to Conversation.
	ConversationFor func(ctx context.Context) *toolset.Conversation

	// Tools names the tools to bind. Nil binds every tool the toolset
	// offers. Naming one it does not offer is toolset.ErrUnknownTool.
	Tools []string

	// Output receives a running command's output as it arrives; ctx is
	// the call's (compose.GetToolCallID(ctx) names the tool call). Nil
	// drops it.
	Output func(ctx context.Context, stream shellcap.Stream, data []byte)

	// Event receives the shell tool's job events. Nil drops them.
	Event func(ctx context.Context, e jobs.ShellEvent)

	// Progress, when true, also sends a running command's output
	// (run_command until it is promoted to a job, shell) to the event
	// stream of the adk.ChatModelAgent the call runs in, as it arrives:
	// adk.AgentEvents whose Output.CustomizedOutput is a *Progress, at
	// most ProgressLimit bytes per call. The model does not read them.
	// False sends none; outside an agent's run (a bare ToolsNode) none
	// are sent either.
	Progress bool
}

// conversation returns the conversation of a call.
func (c *Config) conversation(ctx context.Context) *toolset.Conversation {
	if c.ConversationFor != nil {
		if conv := c.ConversationFor(ctx); conv != nil {
			return conv
		}
	}
	if c.Conversation != nil {
		return c.Conversation
	}
	return c.Toolset.Stateless()
}

// hooks returns the toolset hooks of a call of tool in ctx: its progress
// goes to Output, Event and, with Progress, the agent's event stream (until
// done is called), and approvals are asked by interrupting.
func (c *Config) hooks(ctx context.Context, tool string) (h toolset.Hooks, done func()) {
	h = toolset.Hooks{Interrupt: true}
	done = func() {}
	var p *progress
	if c.Progress {
		p = newProgress(ctx, tool)
		done = p.close
	}
	if out := c.Output; out != nil || p != nil {
		h.Output = func(s shellcap.Stream, data []byte) {
			if out != nil {
				out(ctx, s, data)
			}
			if p != nil {
				p.output(s, data)
			}
		}
	}
	if c.Event != nil {
		ev := c.Event
		h.Event = func(e jobs.ShellEvent) { ev(ctx, e) }
	}
	return h, done
}
