package shellgenkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/shellcap/shellcap/toolset"
)

// Output is what the model receives from a tool: the tool response's
// output.
type Output struct {
	// Text is the text the model reads (toolset.Result.ModelText: the
	// result, then the notices of finished jobs).
	Text string `json:"text"`
	// IsError reports a call that did not do what was asked (a refused
	// command, an unknown job ID, a bad argument). A command that ran and
	// exited non-zero is not an error: its exit code is in Text.
	IsError bool `json:"is_error,omitempty"`
}

// Tools are the toolset's tools, defined on one Genkit instance.
type Tools struct {
	ts   *toolset.Toolset
	defs map[string]*ai.ToolDef[any, any]
	refs []ai.ToolRef
}

// Define defines every tool ts offers on g, with its name, description and
// hand-written input schema, as a Genkit tool that genkit.Generate
// dispatches the model's tool requests to. Define it once per Genkit
// instance: Genkit refuses (panics on) a second definition of the same
// name.
//
// The model reads the toolset's schema, but the toolset, not Genkit's
// schema check, judges the arguments, so invalid ones get the toolset's one
// precise text (an Output with IsError) and the generation goes on.
func Define(g *genkit.Genkit, ts *toolset.Toolset) *Tools {
	t := &Tools{ts: ts, defs: map[string]*ai.ToolDef[any, any]{}}
	for _, tool := range ts.Tools() {
		genkit.RegisterAction(g, newAction(tool, ai.NewTool(tool.Name, tool.Description, t.handler(tool))))
		def, ok := genkit.LookupTool(g, tool.Name).(*ai.ToolDef[any, any])
		if !ok {
			panic(fmt.Sprintf("shellgenkit: tool %q is not registered on the Genkit instance", tool.Name))
		}
		t.defs[tool.Name] = def
		t.refs = append(t.refs, def)
	}
	return t
}

// Refs returns the tools, in the toolset's order, for ai.WithTools.
func (t *Tools) Refs() []ai.ToolRef {
	return append([]ai.ToolRef(nil), t.refs...)
}

// Tool returns the Genkit tool named name, as genkit.LookupTool gives it,
// or nil.
func (t *Tools) Tool(name string) *ai.ToolDef[any, any] {
	return t.defs[name]
}

// handler is the Genkit tool function of tool: it runs the call in the
// context's conversation, maps a pending approval onto a Genkit interrupt
// and a restart's resumed answer onto Hooks.Answer.
func (t *Tools) handler(tool *toolset.Tool) ai.ToolFunc[any, Output] {
	return func(tc *ai.ToolContext, input any) (Output, error) {
		args, err := json.Marshal(input)
		if err != nil {
			return Output{}, fmt.Errorf("shellgenkit: %s: arguments: %w", tool.Name, err)
		}
		hooks := progressHooks(tc)
		if tc.IsResumed() {
			answer, err := answerFrom(tc.Resumed)
			if err != nil {
				return Output{}, fmt.Errorf("shellgenkit: %s: %w", tool.Name, err)
			}
			hooks.Answer = answer
		}
		res, err := tool.Call(tc, t.conversation(tc), args, hooks)
		if err != nil {
			return Output{}, err
		}
		if res.Pending != nil {
			return Output{}, tc.Interrupt(&ai.InterruptOptions{Metadata: questionMetadata(*res.Pending)})
		}
		return Output{Text: res.ModelText(), IsError: res.IsError}, nil
	}
}

// conversation is the conversation of ctx, or the toolset's stateless one.
func (t *Tools) conversation(ctx context.Context) *toolset.Conversation {
	if c, ok := ctx.Value(conversationKey{}).(*toolset.Conversation); ok && c != nil {
		return c
	}
	return t.ts.Stateless()
}

type conversationKey struct{}

// WithConversation returns a context whose tool calls run in conversation c:
// pass it to genkit.Generate for every turn of one conversation with the
// model, so the bash tool keeps its session and list_commands shows the
// conversation's jobs.
func WithConversation(ctx context.Context, c *toolset.Conversation) context.Context {
	return context.WithValue(ctx, conversationKey{}, c)
}
