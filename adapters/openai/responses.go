package openai

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/shellcap/shellcap/toolset"
)

// ResponseTools returns the toolset's tools as Responses API function
// tools, for ResponseNewParams.Tools. Add ShellTool or LocalShellTool to
// offer the API's own shell tool types as well.
func (a *Adapter) ResponseTools() []responses.ToolUnionParam {
	var out []responses.ToolUnionParam
	for _, t := range a.opts.Toolset.Tools() {
		schema, strict := a.schema(t)
		out = append(out, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  schema,
			Strict:      openai.Bool(strict),
		}})
	}
	return out
}

// ShellTool is the Responses API's shell tool in a local environment: the
// model writes shell_call items and ResponseInputs runs them on the Shell.
func ShellTool() responses.ToolUnionParam {
	return responses.ToolUnionParam{OfShell: &responses.FunctionShellToolParam{
		Environment: responses.FunctionShellToolEnvironmentUnionParam{OfLocal: &responses.LocalEnvironmentParam{}},
	}}
}

// LocalShellTool is the Responses API's local_shell tool: the model writes
// local_shell_call items and ResponseInputs runs them on the Shell.
func LocalShellTool() responses.ToolUnionParam {
	return responses.ToolUnionParam{OfLocalShell: &responses.ToolLocalShellParam{}}
}

// ResponseInputs runs, in order, the tool calls among the output items of a
// response that belong to the Adapter, in conversation conv (nil:
// stateless): function_call items naming one of its tools, shell_call and
// local_shell_call items. It returns one output item per call, answering its
// call ID, for the input of the next request (with PreviousResponseID set,
// or after the response's own items). Other items are left to the host.
// The error is non-nil only when ctx ended.
func (a *Adapter) ResponseInputs(ctx context.Context, conv *toolset.Conversation, output []responses.ResponseOutputItemUnion) ([]responses.ResponseInputItemUnionParam, error) {
	var out []responses.ResponseInputItemUnionParam
	for _, item := range output {
		var in *responses.ResponseInputItemUnionParam
		var err error
		switch item.Type {
		case "function_call":
			in, err = a.functionCall(ctx, conv, item.AsFunctionCall())
		case "shell_call":
			in, err = a.shellCall(ctx, conv, item.AsShellCall())
		case "local_shell_call":
			in, err = a.localShellCall(ctx, conv, item.AsLocalShellCall())
		}
		if err != nil {
			return out, err
		}
		if in != nil {
			out = append(out, *in)
		}
	}
	return out, nil
}

// functionCall runs a function_call of one of the Adapter's tools; nil for
// another tool's.
func (a *Adapter) functionCall(ctx context.Context, conv *toolset.Conversation, fc responses.ResponseFunctionToolCall) (*responses.ResponseInputItemUnionParam, error) {
	if !a.Owns(fc.Name) {
		return nil, nil
	}
	text, err := a.callText(ctx, conv, fc.Name, fc.Arguments)
	if err != nil {
		return nil, err
	}
	return &responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(fc.CallID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(text)},
	}}, nil
}
