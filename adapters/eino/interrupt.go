package eino

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap/toolset"
)

func init() {
	// The pending question is the interrupt's info and its checkpointed
	// state.
	schema.RegisterName[toolset.Question]("shellcap_toolset_question")
}

// call runs the tool named name in the call's conversation. A command the
// policy asks about ends the call with an Eino interrupt holding the
// toolset.Question; resumed with a toolset.Answer, the call runs again
// and the answer decides.
func call(ctx context.Context, cfg *Config, name string, args []byte) (*toolset.Result, error) {
	hooks, done := cfg.hooks(ctx, name)
	defer done()
	wasInterrupted, hasState, pending := tool.GetInterruptState[toolset.Question](ctx)
	if wasInterrupted && hasState {
		target, hasData, data := tool.GetResumeContext[any](ctx)
		if !target {
			// Another interrupt was resumed: this one stays pending.
			return nil, tool.StatefulInterrupt(ctx, pending, pending)
		}
		hooks.Answer = answerOf(pending, hasData, data)
	}
	res, err := cfg.conversation(ctx).Call(ctx, name, args, hooks)
	if err != nil {
		return nil, err
	}
	if res.Pending != nil {
		return nil, tool.StatefulInterrupt(ctx, *res.Pending, *res.Pending)
	}
	return res, nil
}

// answerOf is the answer to the pending question carried by a resume's
// data. Anything but a toolset.Answer refuses the command.
func answerOf(q toolset.Question, hasData bool, data any) *toolset.Answer {
	var a toolset.Answer
	switch d := data.(type) {
	case toolset.Answer:
		a = d
	case *toolset.Answer:
		if d != nil {
			a = *d
		} else {
			a = toolset.Answer{Reason: "the interrupt was resumed without an answer"}
		}
	default:
		if !hasData {
			a = toolset.Answer{Reason: "the interrupt was resumed without an answer"}
		} else {
			a = toolset.Answer{Reason: fmt.Sprintf("the interrupt was resumed with %T, not a toolset.Answer", data)}
		}
	}
	if a.Command == "" {
		a.Command = q.Command
	}
	return &a
}
