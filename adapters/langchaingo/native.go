package langchaingo

import (
	"context"
	"fmt"
	"strings"

	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/llms"
)

// Definitions returns the toolset's tools as function definitions for
// native tool calling (llms.WithTools): name, description and the
// hand-written input schema, or its strict variant with Options.Strict.
func (a *Adapter) Definitions() []llms.Tool {
	list := a.ts.Tools()
	out := make([]llms.Tool, 0, len(list))
	for _, t := range list {
		def := &llms.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}
		if a.opts.Strict {
			def.Parameters, def.Strict = t.StrictInputSchema(), true
		}
		out = append(out, llms.Tool{Type: "function", Function: def})
	}
	return out
}

// Call runs one tool call of the model and returns its response, whose
// Content is what the model reads: the output, the exit code, a refusal
// with its reason, or the precise text about a bad call (an unknown tool,
// invalid arguments). The error is non-nil only when ctx ended.
func (a *Adapter) Call(ctx context.Context, tc llms.ToolCall) (llms.ToolCallResponse, error) {
	resp := llms.ToolCallResponse{ToolCallID: tc.ID}
	if tc.FunctionCall == nil {
		resp.Content = fmt.Sprintf("Tool call %q names no function. Call one of: %s.", tc.ID, a.names())
		return resp, nil
	}
	resp.Name = tc.FunctionCall.Name
	t := a.ts.Tool(tc.FunctionCall.Name)
	if t == nil {
		resp.Content = fmt.Sprintf("Unknown tool %s. Call one of: %s.", toolset.Echo(tc.FunctionCall.Name), a.names())
		return resp, nil
	}
	out, err := a.call(ctx, t, []byte(tc.FunctionCall.Arguments))
	if err != nil {
		return llms.ToolCallResponse{}, err
	}
	resp.Content = out
	return resp, nil
}

// Respond runs the tool calls of the model's reply choice, in order, and
// returns the messages to append to the conversation before asking the
// model again: the assistant's message (its text and tool calls), then one
// tool message per call with its llms.ToolCallResponse. A choice without
// tool calls gives none. The error is non-nil only when ctx ended.
func (a *Adapter) Respond(ctx context.Context, choice *llms.ContentChoice) ([]llms.MessageContent, error) {
	if choice == nil || len(choice.ToolCalls) == 0 {
		return nil, nil
	}
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if choice.Content != "" {
		ai.Parts = append(ai.Parts, llms.TextPart(choice.Content))
	}
	for _, tc := range choice.ToolCalls {
		ai.Parts = append(ai.Parts, tc)
	}
	msgs := []llms.MessageContent{ai}
	for _, tc := range choice.ToolCalls {
		resp, err := a.Call(ctx, tc)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{resp}})
	}
	return msgs, nil
}

// names lists the tools offered, for a message about a bad call.
func (a *Adapter) names() string {
	list := a.ts.Tools()
	names := make([]string, 0, len(list))
	for _, t := range list {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}
