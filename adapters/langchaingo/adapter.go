package langchaingo

import (
	"context"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/callbacks"
)

// Options configures an Adapter. The zero value asks no one: a command the
// policy wants approved is refused with the policy's reason.
type Options struct {
	// Approve asks the user about a command the Shell's policy answers
	// "ask", synchronously, while the tool call waits; an error refuses
	// the command with the policy's reason. Nil refuses every such
	// command. It only takes effect when the Shell's
	// shellcap.Options.Approve is toolset.Approve.
	Approve func(ctx context.Context, q toolset.Question) (toolset.Answer, error)

	// Output receives a running command's output as it arrives. It must
	// not block for long. Nil drops it.
	Output func(stream shellcap.Stream, data []byte)

	// Callbacks, when set, is told when a tool of Adapter.Tools starts,
	// ends or fails (HandleToolStart, HandleToolEnd, HandleToolError),
	// as LangChainGo's own tools do. Nil tells no one.
	Callbacks callbacks.Handler

	// Strict makes Definitions offer each tool's strict-mode input schema
	// (toolset.Tool.StrictInputSchema) with FunctionDefinition.Strict set,
	// for providers that require it. False offers the plain schema.
	Strict bool
}

// Adapter binds a toolset conversation to LangChainGo. It is safe for
// concurrent use as far as the conversation is.
type Adapter struct {
	ts   *toolset.Toolset
	conv *toolset.Conversation
	opts Options
}

// New returns an Adapter offering the tools of ts in conversation conv,
// which keeps the bash session, jobs and remembered approvals of one
// conversation with the model (ts.Conversation(id)); nil makes every call
// stateless (see toolset.Toolset.Stateless). The caller closes conv and
// ts.
func New(ts *toolset.Toolset, conv *toolset.Conversation, opts Options) *Adapter {
	return &Adapter{ts: ts, conv: conv, opts: opts}
}

// hooks are the toolset hooks of every call: LangChainGo cannot interrupt
// a tool call, so approvals are asked synchronously or refused.
func (a *Adapter) hooks() toolset.Hooks {
	return toolset.Hooks{Approve: a.opts.Approve, Output: a.opts.Output}
}

// call runs the tool t with the raw JSON arguments. The error is non-nil
// only when ctx ended, also during a command (whose result then says it
// was cancelled): LangChainGo stops an agent run on a tool's error, and a
// run whose context ended must stop. Everything else is in the text the
// model reads.
func (a *Adapter) call(ctx context.Context, t *toolset.Tool, args []byte) (string, error) {
	res, err := t.Call(ctx, a.conv, args, a.hooks())
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return res.ModelText(), err
	}
	return res.ModelText(), nil
}

// Toolset returns the toolset the adapter offers.
func (a *Adapter) Toolset() *toolset.Toolset { return a.ts }

// Conversation returns the conversation the adapter's calls run in (nil:
// stateless).
func (a *Adapter) Conversation() *toolset.Conversation { return a.conv }
