package adk

import (
	"encoding/json"

	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/tool/toolconfirmation"
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
