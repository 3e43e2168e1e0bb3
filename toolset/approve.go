package toolset

import (
	"context"
	"errors"

	"github.com/shellcap/shellcap"
)

// Question is what the user is asked about a command the policy wants
// approved.
type Question struct {
	Tool    string // the tool that would run it
	Command string // the whole command, as the model wrote it
	Reason  string // why the policy asks
}

// Message is the question in words, for a prompt or a form.
func (q Question) Message() string {
	return "The agent wants to run:\n\n" + q.Command + "\n\n" + q.Reason + "\n\nAllow it?"
}

// Answer is the user's answer to a Question.
type Answer struct {
	// Command is the command the answer is about (Question.Command); it
	// counts for that exact command only.
	Command string
	// Approved lets the command run.
	Approved bool
	// Remember applies the same answer to the identical command for the
	// rest of the conversation.
	Remember bool
	// Reason is told to the model when the command is refused.
	Reason string
}

// ErrNoApprover reports a call whose host can ask no one: its Hooks have
// neither Approve nor Interrupt (or the call did not come through a
// toolset).
var ErrNoApprover = errors.New("no one is available to approve commands in this conversation")

// errPending ends the first round of an interrupt-style call; the call
// then returns its question instead of a result.
var errPending = errors.New("waiting for the user's answer")

// call is one tool call's approval state, carried through the Shell to
// Approve in the context.
type call struct {
	conv    *Conversation
	tool    string
	hooks   Hooks
	answer  *Answer   // Hooks.Answer until it has been used
	pending *Question // the question an interrupt-style call ended with
}

type callKey struct{}

func withCall(ctx context.Context, c *Conversation, tool string, hooks Hooks) (context.Context, *call) {
	st := &call{conv: c, tool: tool, hooks: hooks, answer: hooks.Answer}
	return context.WithValue(ctx, callKey{}, st), st
}

// InCall reports whether ctx is the context of a toolset call, whose
// hooks Approve reads.
func InCall(ctx context.Context) bool {
	_, ok := ctx.Value(callKey{}).(*call)
	return ok
}

// Approve is a [shellcap.Approver] that asks through the hooks of the
// toolset call in ctx: put it in shellcap.Options.Approve, so the Shell's
// policy decides and the host's hooks only carry the question. An answer
// the user asked to remember holds for the rest of the conversation. A
// resumed call's Hooks.Answer counts once, and only for the command it
// names; a different command is asked about again. With no way to ask
// (ErrNoApprover), or when Hooks.Approve fails, the Shell refuses the
// command with the policy's reason.
func Approve(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
	st, _ := ctx.Value(callKey{}).(*call)
	if st == nil {
		return shellcap.Approval{}, ErrNoApprover
	}
	if ok, known := st.conv.remembered(req.Command); known {
		return shellcap.Approval{Approved: ok, Reason: "the user refused this command earlier"}, nil
	}
	q := Question{Tool: st.tool, Command: req.Command, Reason: req.Decision.Reason}
	var a Answer
	switch {
	case st.answer != nil && st.answer.Command == req.Command:
		a = *st.answer
		st.answer = nil // one answer, one command
	case st.hooks.Interrupt:
		st.pending = &q
		return shellcap.Approval{}, errPending
	case st.hooks.Approve != nil:
		var err error
		if a, err = st.hooks.Approve(ctx, q); err != nil {
			return shellcap.Approval{}, err
		}
	default:
		return shellcap.Approval{}, ErrNoApprover
	}
	if a.Remember && a.Approved {
		st.conv.remember(req.Command, a.Approved)
	}
	return shellcap.Approval{Approved: a.Approved, Reason: a.Reason}, nil
}
