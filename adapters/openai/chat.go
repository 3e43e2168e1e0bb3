package openai

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
	"github.com/shellcap/shellcap/toolset"
)

// ChatTools returns the toolset's tools as Chat Completions function tools,
// for ChatCompletionNewParams.Tools.
func (a *Adapter) ChatTools() []openai.ChatCompletionToolUnionParam {
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range a.opts.Toolset.Tools() {
		schema, strict := a.schema(t)
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
			Strict:      openai.Bool(strict),
		}))
	}
	return out
}

// ChatToolMessages runs, in order, the function tool calls of msg (an
// assistant message of a chat completion) that name one of the Adapter's
// tools, in conversation conv (nil: stateless), and returns one tool
// message per call, answering its ID. Calls of other tools are left to the
// host (see Owns). The error is non-nil only when ctx ended.
func (a *Adapter) ChatToolMessages(ctx context.Context, conv *toolset.Conversation, msg openai.ChatCompletionMessage) ([]openai.ChatCompletionMessageParamUnion, error) {
	var out []openai.ChatCompletionMessageParamUnion
	for _, tc := range msg.ToolCalls {
		if tc.Type != "function" || !a.Owns(tc.Function.Name) {
			continue
		}
		text, err := a.callText(ctx, conv, tc.Function.Name, tc.Function.Arguments)
		if err != nil {
			return out, err
		}
		out = append(out, openai.ToolMessage(text, tc.ID))
	}
	return out, nil
}
