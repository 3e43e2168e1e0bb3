package adk

import (
	"encoding/json"

	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

// Confirmation is the payload of the confirmation a call requests for a
// command the policy asks about, and what the application may send back as
// the payload of its answer ({"confirmed": bool, "payload": Confirmation}).
// The answer counts only for Command; echo it back unchanged.
type Confirmation struct {
	Tool    string `json:"tool"`    // the tool that would run it
	Command string `json:"command"` // the whole command, as the model wrote it
	Reason  string `json:"reason"`  // why the policy asks
	// Remember, in an answer, applies it to the identical command for the
	// rest of the session.
	Remember bool `json:"remember,omitempty"`
	// DeclineReason, in a declining answer, is told to the model.
	DeclineReason string `json:"decline_reason,omitempty"`
}

// confirmationOf reads the payload of an answer: a Confirmation, or a
// JSON-shaped map of one (as it comes back from a session store or a client).
// A payload it cannot read is the zero Confirmation.
func confirmationOf(tc *toolconfirmation.ToolConfirmation) Confirmation {
	var c Confirmation
	switch p := tc.Payload.(type) {
	case Confirmation:
		return p
	case *Confirmation:
		if p != nil {
			return *p
		}
	case nil:
	default:
		if b, err := json.Marshal(p); err == nil {
			_ = json.Unmarshal(b, &c)
		}
	}
	return c
}

// answer is the toolset answer for the user's confirmation tc of command.
func answer(tc *toolconfirmation.ToolConfirmation, c Confirmation, command string) *toolset.Answer {
	return &toolset.Answer{Command: command, Approved: tc.Confirmed, Remember: c.Remember, Reason: c.DeclineReason}
}

// Request is a confirmation the runner asks the application for, about a
// shellcap command: an adk_request_confirmation call of an event.
type Request struct {
	// ID is the adk_request_confirmation call's ID, which the answer names.
	ID string
	// Hint is the question in words (toolset.Question.Message).
	Hint string
	// Confirmation is what the command is and why the policy asks.
	Confirmation Confirmation
}

// Requests returns the confirmations ev asks for about shellcap commands,
// in order; confirmations of other tools are left out. It reads the call's
// arguments whether the session store kept them as values or as JSON.
func Requests(ev *session.Event) []Request {
	if ev == nil || ev.Content == nil {
		return nil
	}
	var out []Request
	for _, p := range ev.Content.Parts {
		fc := p.FunctionCall
		if fc == nil || fc.Name != toolconfirmation.FunctionCallName {
			continue
		}
		var tc toolconfirmation.ToolConfirmation
		switch v := fc.Args["toolConfirmation"].(type) {
		case toolconfirmation.ToolConfirmation:
			tc = v
		case *toolconfirmation.ToolConfirmation:
			if v != nil {
				tc = *v
			}
		default:
			b, err := json.Marshal(v)
			if err != nil || json.Unmarshal(b, &tc) != nil {
				continue
			}
		}
		c := confirmationOf(&tc)
		if c.Command == "" {
			continue
		}
		out = append(out, Request{ID: fc.ID, Hint: tc.Hint, Confirmation: c})
	}
	return out
}

// Approve is the user's approval of r, as the message to run the session
// with; remember applies it to the identical command for the rest of the
// session.
func (r Request) Approve(remember bool) *genai.Content {
	c := r.Confirmation
	c.Remember = remember
	return r.reply(true, c)
}

// Decline is the user's refusal of r, as the message to run the session
// with; reason, when not empty, is told to the model.
func (r Request) Decline(reason string) *genai.Content {
	c := r.Confirmation
	c.DeclineReason = reason
	return r.reply(false, c)
}

func (r Request) reply(confirmed bool, c Confirmation) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID:       r.ID,
		Name:     toolconfirmation.FunctionCallName,
		Response: map[string]any{"confirmed": confirmed, "payload": c},
	}}}}
}
