package langchaingo

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/tools"
)

// Tools returns the toolset's tools as LangChainGo tools.Tool values, for
// the agents package (agents.NewOneShotAgent, agents.NewConversationalAgent,
// agents.NewOpenAIFunctionsAgent) and agents.Executor. Each tool's input is
// the JSON object of its arguments; a read-only workspace offers none.
func (a *Adapter) Tools() []tools.Tool {
	list := a.ts.Tools()
	out := make([]tools.Tool, 0, len(list))
	for _, t := range list {
		out = append(out, &reactTool{a: a, t: t, desc: describe(t)})
	}
	return out
}

// reactTool is one toolset tool as a tools.Tool.
type reactTool struct {
	a    *Adapter
	t    *toolset.Tool
	desc string
}

var _ tools.Tool = (*reactTool)(nil)

// Name is the tool's name (run_command, bash, ...).
func (r *reactTool) Name() string { return r.t.Name }

// Description is the tool's description, then its input schema: a ReAct
// model has no other place to read what to write as the input.
func (r *reactTool) Description() string { return r.desc }

// Call runs the tool with input, the JSON object of its arguments as the
// model wrote it (empty for none), and returns what the model reads,
// refusals and bad arguments included. The error is non-nil only when ctx
// ended, which stops the agent.
func (r *reactTool) Call(ctx context.Context, input string) (string, error) {
	if h := r.a.opts.Callbacks; h != nil {
		h.HandleToolStart(ctx, input)
	}
	out, err := r.a.call(ctx, r.t, []byte(unfence(input)))
	if h := r.a.opts.Callbacks; h != nil {
		if err != nil {
			h.HandleToolError(ctx, err)
		} else {
			h.HandleToolEnd(ctx, out)
		}
	}
	return out, err
}

// describe is t's description followed by its input schema, on one line of
// compact JSON.
func describe(t *toolset.Tool) string {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil { // a hand-written schema always marshals
		return t.Description
	}
	return t.Description + "\nInput: a JSON object matching the JSON Schema " + string(schema)
}

// unfence is the input without the blanks around it and without a
// Markdown code fence (```json ... ```) ReAct models often wrap it in.
func unfence(input string) string {
	s := strings.TrimSpace(input)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if body, ok := strings.CutSuffix(rest, "```"); ok {
			// Drop the fence's info string ("json") up to the first line break.
			if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.ContainsAny(body[:i], "{[\"") {
				body = body[i+1:]
			}
			s = strings.TrimSpace(body)
		}
	}
	return s
}
