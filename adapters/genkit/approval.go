package shellgenkit

import (
	"errors"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/shellcap/shellcap/toolset"
)

// The keys of an interrupt's metadata (the question) and of a restart's
// resumed metadata (the answer).
const (
	keyTool     = "tool"
	keyCommand  = "command"
	keyReason   = "reason"
	keyMessage  = "message"
	keyApproved = "approved"
	keyRemember = "remember"
)

// ErrNotInterrupt reports a part that is not an approval interrupt of a
// shellcap tool.
var ErrNotInterrupt = errors.New("shellgenkit: not an approval interrupt of a shellcap tool")

// questionMetadata is the interrupt metadata of q.
func questionMetadata(q toolset.Question) map[string]any {
	return map[string]any{keyTool: q.Tool, keyCommand: q.Command, keyReason: q.Reason, keyMessage: q.Message()}
}

// Question returns what the user is asked about the interrupted tool
// request p (one of resp.Interrupts()); false when p is not the approval
// interrupt of a shellcap tool.
func Question(p *ai.Part) (toolset.Question, bool) {
	if p == nil || !p.IsInterrupt() {
		return toolset.Question{}, false
	}
	meta, ok := p.Metadata["interrupt"].(map[string]any)
	if !ok {
		return toolset.Question{}, false
	}
	command, ok := meta[keyCommand].(string)
	if !ok {
		return toolset.Question{}, false
	}
	tool, _ := meta[keyTool].(string)
	reason, _ := meta[keyReason].(string)
	return toolset.Question{Tool: tool, Command: command, Reason: reason}, true
}

// Restart returns the part that resumes the interrupted tool request p with
// the user's answer a, for ai.WithToolRestarts on the next genkit.Generate
// (with ai.WithMessages(resp.History()...)). An approved answer runs the
// command; a declined one tells the model it was refused, with a.Reason.
// The answer counts only for the command it names: an empty a.Command is
// the command of p's question.
func (t *Tools) Restart(p *ai.Part, a toolset.Answer) (*ai.Part, error) {
	q, ok := Question(p)
	if !ok || p.ToolRequest == nil {
		return nil, ErrNotInterrupt
	}
	def := t.defs[p.ToolRequest.Name]
	if def == nil {
		return nil, fmt.Errorf("%w: unknown tool %q", ErrNotInterrupt, p.ToolRequest.Name)
	}
	if a.Command == "" {
		a.Command = q.Command
	}
	return def.RestartWith(p, ai.WithResumedMetadata[any](map[string]any{
		keyCommand:  a.Command,
		keyApproved: a.Approved,
		keyRemember: a.Remember,
		keyReason:   a.Reason,
	}))
}

// answerFrom reads the answer of a restart's resumed metadata. A restart
// that carries no answer (Genkit's default resumed metadata) is refused.
func answerFrom(m map[string]any) (*toolset.Answer, error) {
	command, ok := m[keyCommand].(string)
	if !ok {
		return nil, errors.New("the tool was restarted without an answer; restart it with Tools.Restart")
	}
	a := &toolset.Answer{Command: command}
	a.Approved, _ = m[keyApproved].(bool)
	a.Remember, _ = m[keyRemember].(bool)
	a.Reason, _ = m[keyReason].(string)
	return a, nil
}
