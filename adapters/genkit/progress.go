package shellgenkit

import (
	"context"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// OutputFunc receives a running command's output as it arrives, with the
// context of the tool call it belongs to. It must not block for long.
type OutputFunc func(ctx context.Context, stream shellcap.Stream, data []byte)

// EventFunc receives the shell tool's job events, with the context of the
// tool call they belong to.
type EventFunc func(ctx context.Context, ev jobs.ShellEvent)

type outputKey struct{}

type eventKey struct{}

// WithOutput returns a context whose tool calls send a running command's
// output (run_command until it is promoted to a job, shell) to fn as it
// arrives. Genkit gives a tool no way to stream to the model or to the
// ai.WithStreaming callback while it runs (the callback gets the tool
// responses once every tool of a turn has returned), so this is how a host
// shows a long command's progress; the model still reads the toolset's
// text once the call is done. A nil fn drops the output.
func WithOutput(ctx context.Context, fn OutputFunc) context.Context {
	return context.WithValue(ctx, outputKey{}, fn)
}

// WithEvent returns a context whose tool calls send the shell tool's job
// events to fn. A nil fn drops them.
func WithEvent(ctx context.Context, fn EventFunc) context.Context {
	return context.WithValue(ctx, eventKey{}, fn)
}

// progressHooks are the toolset hooks of a call in ctx: approvals by interrupting,
// progress to the context's OutputFunc and EventFunc.
func progressHooks(ctx context.Context) toolset.Hooks {
	h := toolset.Hooks{Interrupt: true}
	if fn, ok := ctx.Value(outputKey{}).(OutputFunc); ok && fn != nil {
		h.Output = func(s shellcap.Stream, data []byte) { fn(ctx, s, data) }
	}
	if fn, ok := ctx.Value(eventKey{}).(EventFunc); ok && fn != nil {
		h.Event = func(ev jobs.ShellEvent) { fn(ctx, ev) }
	}
	return h
}
