package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// ErrNoToolset reports Options without a Toolset.
var ErrNoToolset = errors.New("openai adapter: Options.Toolset is required")

// Options configures an Adapter. Toolset is required; every other field's
// zero value is the safe default.
type Options struct {
	// Toolset holds the tools and runs them. Required.
	Toolset *toolset.Toolset

	// Approve asks the user, synchronously, about a command the Shell's
	// policy answers "ask" (the Shell's Options.Approve must be
	// toolset.Approve). An error refuses the command with the policy's
	// reason. Nil asks no one: such commands are refused.
	Approve func(ctx context.Context, q toolset.Question) (toolset.Answer, error)

	// Output receives a running command's output as it arrives. Nil drops
	// it.
	Output func(stream shellcap.Stream, data []byte)

	// NonStrict offers the function tools with their plain schemas and
	// strict mode off. False (the default) offers them in strict mode with
	// the toolset's strict schemas.
	NonStrict bool
}

// Adapter runs the tool calls of OpenAI models on a toolset. It is safe for
// concurrent use.
type Adapter struct {
	opts Options
}

// New returns an Adapter for opts.
func New(opts Options) (*Adapter, error) {
	if opts.Toolset == nil {
		return nil, ErrNoToolset
	}
	return &Adapter{opts: opts}, nil
}

// Toolset returns the toolset the Adapter runs calls on.
func (a *Adapter) Toolset() *toolset.Toolset { return a.opts.Toolset }

// Owns reports whether name is a function tool the Adapter offers, so a
// host that mixes its own tools knows which calls to hand it.
func (a *Adapter) Owns(name string) bool { return a.opts.Toolset.Tool(name) != nil }

// hooks are every call's hooks: output as it arrives, and the synchronous
// approver.
func (a *Adapter) hooks() toolset.Hooks {
	return toolset.Hooks{Output: a.opts.Output, Approve: a.opts.Approve}
}

// schema is the input schema offered for t, and whether it is strict.
func (a *Adapter) schema(t *toolset.Tool) (map[string]any, bool) {
	if a.opts.NonStrict {
		return t.InputSchema, false
	}
	return t.StrictInputSchema(), true
}

// call runs tool name with the model's raw arguments in conv (nil: the
// toolset's stateless conversation). The error is non-nil only when ctx
// ended.
func (a *Adapter) call(ctx context.Context, conv *toolset.Conversation, name string, args json.RawMessage) (*toolset.Result, error) {
	if conv == nil {
		conv = a.opts.Toolset.Stateless()
	}
	res, err := conv.Call(ctx, name, args, a.hooks())
	if errors.Is(err, toolset.ErrUnknownTool) {
		msg := fmt.Sprintf("There is no tool named %s here.", toolset.Echo(name))
		return &toolset.Result{Text: msg, Err: errors.New(msg), IsError: true}, nil
	}
	return res, err
}

// callText runs a function tool call and returns what the model reads.
func (a *Adapter) callText(ctx context.Context, conv *toolset.Conversation, name, args string) (string, error) {
	res, err := a.call(ctx, conv, name, json.RawMessage(args))
	if err != nil {
		return "", err
	}
	return res.ModelText(), nil
}
