package eino

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	"github.com/shellcap/shellcap/toolset"
)

// Tool is one shellcap tool as an Eino tool: both tool.InvokableTool and
// tool.StreamableTool.
type Tool struct {
	cfg  *Config
	t    *toolset.Tool
	info *schema.ToolInfo
}

var (
	_ tool.InvokableTool  = (*Tool)(nil)
	_ tool.StreamableTool = (*Tool)(nil)
)

// Tools returns the toolset's tools (or those named in cfg.Tools) as Eino
// tools, for compose.ToolsNodeConfig.Tools or adk.ToolsConfig.
func Tools(cfg Config) ([]tool.BaseTool, error) {
	if cfg.Toolset == nil {
		return nil, ErrNoToolset
	}
	c := &cfg
	var ts []*toolset.Tool
	if cfg.Tools == nil {
		ts = cfg.Toolset.Tools()
	} else {
		for _, name := range cfg.Tools {
			t := cfg.Toolset.Tool(name)
			if t == nil {
				return nil, fmt.Errorf("%w: %q", toolset.ErrUnknownTool, name)
			}
			ts = append(ts, t)
		}
	}
	out := make([]tool.BaseTool, 0, len(ts))
	for _, t := range ts {
		et, err := newTool(c, t)
		if err != nil {
			return nil, err
		}
		out = append(out, et)
	}
	return out, nil
}

func newTool(cfg *Config, t *toolset.Tool) (*Tool, error) {
	js, err := convertSchema(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("eino: input schema of %s: %w", t.Name, err)
	}
	return &Tool{cfg: cfg, t: t, info: &schema.ToolInfo{
		Name:        t.Name,
		Desc:        t.Description,
		ParamsOneOf: schema.NewParamsOneOfByJSONSchema(js),
	}}, nil
}

// convertSchema carries the toolset's hand-written schema over to Eino's
// schema type unchanged.
func convertSchema(m map[string]any) (*jsonschema.Schema, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	js := &jsonschema.Schema{}
	if err := json.Unmarshal(b, js); err != nil {
		return nil, err
	}
	return js, nil
}

// Name returns the tool's name.
func (t *Tool) Name() string { return t.t.Name }

// Info describes the tool to the model: the toolset's name, description
// and input schema.
func (t *Tool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// InvokableRun runs the tool and returns the model text. A refusal or a
// bad argument is a result the model reads, not an error; the error is
// an Eino interrupt when the policy asks for approval (see the package
// doc), or the context's when it ended.
func (t *Tool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	res, err := call(ctx, t.cfg, t.t.Name, []byte(argumentsInJSON))
	if err != nil {
		return "", err
	}
	return res.ModelText(), nil
}

// StreamableRun runs the tool as InvokableRun does and streams its model
// text. The model reads what the chunks concatenate to, so the output is
// not sent twice: a running command's output reaches Config.Output (and,
// with Config.Progress, the agent's event stream) as it arrives, and the
// stream carries the model text once the call is done.
func (t *Tool) StreamableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	res, err := call(ctx, t.cfg, t.t.Name, []byte(argumentsInJSON))
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]string{res.ModelText()}), nil
}
