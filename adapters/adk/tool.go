package adk

import (
	"encoding/json"

	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/tool/toolutils"
	"google.golang.org/genai"
)

// functionTool is one toolset tool as an ADK function tool (the runner
// dispatches any tool with Declaration and Run).
type functionTool struct {
	a *Toolset
	t *toolset.Tool
}

// Name implements tool.Tool.
func (f *functionTool) Name() string { return f.t.Name }

// Description implements tool.Tool.
func (f *functionTool) Description() string { return f.t.Description }

// IsLongRunning implements tool.Tool: every call returns a response (a
// background job's ID, for the job tools).
func (f *functionTool) IsLongRunning() bool { return false }

// Declaration is what the model is told: the toolset's name, description
// and hand-written input schema.
func (f *functionTool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{
		Name:                 f.t.Name,
		Description:          f.t.Description,
		ParametersJsonSchema: f.t.InputSchema,
	}
}

// ProcessRequest adds the tool to the model request.
func (f *functionTool) ProcessRequest(_ agent.Context, req *model.LLMRequest) error {
	return toolutils.PackTool(req, f)
}

// Run runs one call in the conversation of ctx's session.
func (f *functionTool) Run(ctx agent.Context, args any) (map[string]any, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return errorText("Invalid arguments for %s: %v.", f.t.Name, err), nil
	}
	conv := f.a.conversation(ctx)
	hooks := f.a.hooks(ctx)
	if tc := ctx.ToolConfirmation(); tc != nil {
		// The user's answer to this call's confirmation. It names the
		// command it is about (the payload echoed back); without one,
		// it is about the command the model wrote. The toolset lets it
		// count only for that exact command.
		c := confirmationOf(tc)
		if m, ok := args.(map[string]any); ok && c.Command == "" {
			c.Command, _ = m["command"].(string)
		}
		hooks.Answer = answer(tc, c, c.Command)
		res, err := conv.Call(ctx, f.t.Name, raw, hooks)
		if err != nil {
			return nil, err
		}
		if q := res.Pending; q != nil {
			// The answer was about another command. ADK does not
			// ask again from a resumed call, so refuse this one.
			return errorText("Not run: the user's confirmation was about another command (%s), not %s. Call the tool again to ask about it.",
				toolset.Echo(c.Command), toolset.Echo(q.Command)), nil
		}
		return f.response(ctx, res)
	}
	res, err := conv.Call(ctx, f.t.Name, raw, hooks)
	if err != nil {
		return nil, err
	}
	return f.response(ctx, res)
}

// response is what the model reads of res; a pending question requests
// ADK's confirmation and ends the turn.
func (f *functionTool) response(ctx agent.Context, res *toolset.Result) (map[string]any, error) {
	if q := res.Pending; q != nil {
		payload := Confirmation{Tool: q.Tool, Command: q.Command, Reason: q.Reason}
		if err := ctx.RequestConfirmation(q.Message(), payload); err != nil {
			return nil, err
		}
		return errorText("Waiting for the user to approve the command: %s", q.Message()), nil
	}
	if res.IsError {
		return map[string]any{"error": res.ModelText()}, nil
	}
	return map[string]any{"output": res.ModelText()}, nil
}
