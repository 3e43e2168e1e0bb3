package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// ErrNoToolset reports New called without a toolset or a conversation.
var ErrNoToolset = errors.New("anthropic: a toolset and a conversation are required")

// Options configures the tools of one conversation. The zero value reports
// no output and can ask no one, so a command the policy wants approved is
// refused with the policy's reason.
type Options struct {
	// Approve asks the user, synchronously, about a command the Shell's
	// policy answers "ask" (the Shell needs toolset.Approve as its
	// Options.Approve); an error refuses the command with the policy's
	// reason. Nil refuses every such command with the policy's reason.
	Approve func(ctx context.Context, q toolset.Question) (toolset.Answer, error)

	// Output receives a running command's output as it arrives
	// (run_command, shell), for a host that shows it while Claude waits.
	// It must not block for long. Nil drops it.
	Output func(stream shellcap.Stream, data []byte)

	// Event receives the shell tool's job events (started, output,
	// finished). Nil drops them.
	Event func(jobs.ShellEvent)
}

// Tools are the toolset's tools bound to one conversation with the model,
// in the SDK's shapes. They are safe for concurrent use (the tool runner
// runs the calls of one turn in parallel).
type Tools struct {
	ts    *toolset.Toolset
	conv  *toolset.Conversation
	hooks toolset.Hooks
}

// New binds the tools ts offers to conv, the conversation whose bash
// session, jobs and remembered approvals they use. ts and conv are the
// caller's: closing them is its job.
func New(ts *toolset.Toolset, conv *toolset.Conversation, opts Options) (*Tools, error) {
	if ts == nil || conv == nil {
		return nil, ErrNoToolset
	}
	return &Tools{ts: ts, conv: conv, hooks: toolset.Hooks{Approve: opts.Approve, Output: opts.Output, Event: opts.Event}}, nil
}

// BetaDefinitions returns the tools as the beta Messages API declares them
// (Beta.Messages), in the toolset's order: bash as Anthropic's
// bash_20250124 tool, every other tool as a custom tool with the toolset's
// description and input schema.
func (t *Tools) BetaDefinitions() []sdk.BetaToolUnionParam {
	var defs []sdk.BetaToolUnionParam
	for _, tool := range t.ts.Tools() {
		if tool.Name == toolset.BashTool {
			defs = append(defs, sdk.BetaToolUnionParam{OfBashTool20250124: &sdk.BetaToolBash20250124Param{}})
			continue
		}
		defs = append(defs, sdk.BetaToolUnionParam{OfTool: &sdk.BetaToolParam{
			Name:        tool.Name,
			Description: sdk.String(tool.Description),
			InputSchema: schemaParam[sdk.BetaToolInputSchemaParam](tool.InputSchema),
		}})
	}
	return defs
}

// Definitions is BetaDefinitions for the Messages API (client.Messages).
func (t *Tools) Definitions() []sdk.ToolUnionParam {
	var defs []sdk.ToolUnionParam
	for _, tool := range t.ts.Tools() {
		if tool.Name == toolset.BashTool {
			defs = append(defs, sdk.ToolUnionParam{OfBashTool20250124: &sdk.ToolBash20250124Param{}})
			continue
		}
		defs = append(defs, sdk.ToolUnionParam{OfTool: &sdk.ToolParam{
			Name:        tool.Name,
			Description: sdk.String(tool.Description),
			InputSchema: schemaParam[sdk.ToolInputSchemaParam](tool.InputSchema),
		}})
	}
	return defs
}

// BetaTools returns the tools for the SDK's tool runner
// (Beta.Messages.NewToolRunner). The runner declares bash as a custom tool
// unless the request's Tools already have Anthropic's bash tool: pass
// BetaDefinitions in the params too, or use NewToolRunner, which does.
func (t *Tools) BetaTools() []sdk.BetaTool {
	var tools []sdk.BetaTool
	for _, tool := range t.ts.Tools() {
		tools = append(tools, &betaTool{tools: t, tool: tool})
	}
	return tools
}

// NewToolRunner creates the SDK's tool runner on messages (a client's
// Beta.Messages) with these tools, and sends nothing yet: their
// BetaDefinitions are added to params.Tools (after the caller's own) and
// their calls run in this conversation.
func (t *Tools) NewToolRunner(messages *sdk.BetaMessageService, params sdk.BetaToolRunnerParams, opts ...option.RequestOption) *sdk.BetaToolRunner {
	return messages.NewToolRunner(t.BetaTools(), t.withDefinitions(params), opts...)
}

// NewToolRunnerStreaming is NewToolRunner for the SDK's streaming tool
// runner.
func (t *Tools) NewToolRunnerStreaming(messages *sdk.BetaMessageService, params sdk.BetaToolRunnerParams, opts ...option.RequestOption) *sdk.BetaToolRunnerStreaming {
	return messages.NewToolRunnerStreaming(t.BetaTools(), t.withDefinitions(params), opts...)
}

// withDefinitions returns params with the BetaDefinitions after its own tools.
func (t *Tools) withDefinitions(params sdk.BetaToolRunnerParams) sdk.BetaToolRunnerParams {
	params.Tools = append(append([]sdk.BetaToolUnionParam(nil), params.Tools...), t.BetaDefinitions()...)
	return params
}

// Call runs one tool_use block of a reply of the Messages API
// (client.Messages.New) in this conversation and returns the tool_result to
// send back, for a loop of your own: the toolset's text, with is_error set
// when the toolset reports an error. The error is non-nil only when ctx
// ended.
func (t *Tools) Call(ctx context.Context, use sdk.ToolUseBlock) (sdk.ToolResultBlockParam, error) {
	text, isError, err := t.call(ctx, use.Name, use.Input)
	if err != nil {
		return sdk.ToolResultBlockParam{}, err
	}
	block := sdk.ToolResultBlockParam{ToolUseID: use.ID}
	if text != "" { // the API refuses an empty text block
		block.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: text}}}
	}
	if isError {
		block.IsError = sdk.Bool(true)
	}
	return block, nil
}

// BetaCall is Call for a reply of the beta Messages API (Beta.Messages.New).
func (t *Tools) BetaCall(ctx context.Context, use sdk.BetaToolUseBlock) (sdk.BetaToolResultBlockParam, error) {
	input := json.RawMessage(use.JSON.Input.Raw())
	if len(input) == 0 { // a block built by hand
		var err error
		if input, err = json.Marshal(use.Input); err != nil {
			return sdk.NewBetaToolResultTextBlockParam(use.ID, fmt.Sprintf("The arguments of %s could not be read: %v.", toolset.Echo(use.Name), err), true), nil
		}
	}
	text, isError, err := t.call(ctx, use.Name, input)
	if err != nil {
		return sdk.BetaToolResultBlockParam{}, err
	}
	block := sdk.BetaToolResultBlockParam{ToolUseID: use.ID, Content: textContent(text)}
	if isError {
		block.IsError = sdk.Bool(true)
	}
	return block, nil
}

// call runs the tool named name and returns what the model reads; an
// unknown tool is an error result naming the tools there are.
func (t *Tools) call(ctx context.Context, name string, input json.RawMessage) (text string, isError bool, err error) {
	res, err := t.ts.Call(ctx, t.conv, name, input, t.hooks)
	if errors.Is(err, toolset.ErrUnknownTool) {
		var names []string
		for _, tool := range t.ts.Tools() {
			names = append(names, tool.Name)
		}
		return fmt.Sprintf("Unknown tool %s; the tools are %s.", toolset.Echo(name), strings.Join(names, ", ")), true, nil
	}
	if err != nil {
		return "", false, err
	}
	return res.ModelText(), res.IsError, nil
}

// betaTool is one toolset tool as the tool runner runs it.
type betaTool struct {
	tools *Tools
	tool  *toolset.Tool
}

func (b *betaTool) Name() string        { return b.tool.Name }
func (b *betaTool) Description() string { return b.tool.Description }

func (b *betaTool) InputSchema() sdk.BetaToolInputSchemaParam {
	return schemaParam[sdk.BetaToolInputSchemaParam](b.tool.InputSchema)
}

// Execute runs the call in the conversation. The runner sends an error as a
// tool_result with is_error set, so a result the toolset reports as an
// error comes back as a *ToolError.
func (b *betaTool) Execute(ctx context.Context, input json.RawMessage) ([]sdk.BetaToolResultBlockParamContentUnion, error) {
	res, err := b.tool.Call(ctx, b.tools.conv, input, b.tools.hooks)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &ToolError{Tool: b.tool.Name, Text: res.ModelText(), Err: res.Err}
	}
	return textContent(res.ModelText()), nil
}

// ToolError is a tool call the toolset reports as an error (Result.IsError),
// as a BetaTool's Execute returns it to the tool runner.
type ToolError struct {
	Tool string // the tool called
	Text string // what the model reads
	Err  error  // why the call did not do what was asked (Result.Err)
}

// Error is the text the model reads.
func (e *ToolError) Error() string { return e.Text }

// Unwrap returns the toolset's reason.
func (e *ToolError) Unwrap() error { return e.Err }

// textContent is text as tool_result content; the API refuses an empty text
// block, so empty text is no content.
func textContent(text string) []sdk.BetaToolResultBlockParamContentUnion {
	if text == "" {
		return nil
	}
	return []sdk.BetaToolResultBlockParamContentUnion{{OfText: &sdk.BetaTextBlockParam{Text: text}}}
}

// schemaParam carries the toolset's hand-written schema unchanged: the
// keywords the SDK's schema type has a field for in their fields, every
// other keyword beside them.
func schemaParam[P sdk.ToolInputSchemaParam | sdk.BetaToolInputSchemaParam](schema map[string]any) P {
	var (
		properties any
		required   []string
		extra      map[string]any
	)
	for k, v := range schema {
		switch k {
		case "type": // always "object", which the SDK writes
		case "properties":
			properties = v
		case "required":
			if req, ok := v.([]string); ok {
				required = req
				continue
			}
			fallthrough
		default:
			if extra == nil {
				extra = map[string]any{}
			}
			extra[k] = v
		}
	}
	return P{Properties: properties, Required: required, ExtraFields: extra}
}
