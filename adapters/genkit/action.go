package shellgenkit

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/core/api"
	"github.com/shellcap/shellcap/toolset"
)

// action is the Genkit tool action of one toolset tool: it describes the
// tool with the toolset's hand-written input schema, for the model, and
// runs the Genkit tool inner, which has no schema of its own, so that
// Genkit's schema check does not refuse the arguments before the toolset
// can tell the model precisely what is wrong with them.
type action struct {
	desc  api.ActionDesc
	inner *ai.ToolDef[any, Output]
}

var _ api.Action = (*action)(nil)

func newAction(tool *toolset.Tool, inner *ai.ToolDef[any, Output]) *action {
	return &action{
		desc: api.ActionDesc{
			Type:         api.ActionTypeToolV2,
			Key:          api.NewKey(api.ActionTypeToolV2, "", tool.Name),
			Name:         tool.Name,
			Description:  tool.Description,
			InputSchema:  tool.InputSchema,
			OutputSchema: core.InferSchemaMap(Output{}),
			Metadata: map[string]any{
				"type":        api.ActionTypeToolV2,
				"name":        tool.Name,
				"description": tool.Description,
				"tool":        map[string]any{"multipart": false},
			},
		},
		inner: inner,
	}
}

// Name returns the tool's name.
func (a *action) Name() string { return a.desc.Name }

// Desc describes the tool, with the toolset's input schema.
func (a *action) Desc() api.ActionDesc { return a.desc }

// Register registers the action as a tool, under the current and the
// legacy tool action types, as genkit.DefineTool does.
func (a *action) Register(r api.Registry) {
	r.RegisterAction(api.NewKey(api.ActionTypeToolV2, "", a.desc.Name), a)
	r.RegisterAction(api.NewKey(api.ActionTypeTool, "", a.desc.Name), a)
}

// RunJSON runs the tool on the model's raw arguments.
func (a *action) RunJSON(ctx context.Context, input json.RawMessage, cb func(context.Context, json.RawMessage) error) (json.RawMessage, error) {
	res, err := a.RunJSONWithTelemetry(ctx, input, cb)
	if err != nil {
		return nil, err
	}
	return res.Result, nil
}

// RunJSONWithTelemetry runs the tool on the model's raw arguments, in the
// inner tool's trace span.
func (a *action) RunJSONWithTelemetry(ctx context.Context, input json.RawMessage, _ func(context.Context, json.RawMessage) error) (*api.ActionRunResult[json.RawMessage], error) {
	var in any
	if len(input) > 0 {
		if err := json.Unmarshal(input, &in); err != nil {
			return nil, fmt.Errorf("shellgenkit: %s: arguments are not JSON: %w", a.desc.Name, err)
		}
	}
	resp, err := a.inner.RunRawMultipart(ctx, in)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(resp)
	if err != nil {
		return nil, err
	}
	return &api.ActionRunResult[json.RawMessage]{Result: out}, nil
}
