package shellcap

import (
	"context"
	"fmt"

	"github.com/shellcap/shellcap/policy"
)

// ApprovalMode says which commands go to Options.Approve.
type ApprovalMode int

const (
	// ApproveAsk sends only commands the policy answers "ask" for; without
	// an approver they are refused. This is the default.
	ApproveAsk ApprovalMode = iota
	// ApproveAll sends every command the policy does not deny, as a human
	// in the loop would want. It needs Options.Approve.
	ApproveAll
	// ApproveNone asks no one: "ask" decisions run. It needs
	// Options.AcknowledgeUnsafe, because nothing then stands between the
	// model and the host but the policy's deny rules.
	ApproveNone
)

// String returns the mode's configuration value: "ask", "all" or "none".
func (m ApprovalMode) String() string {
	switch m {
	case ApproveAsk:
		return "ask"
	case ApproveAll:
		return "all"
	case ApproveNone:
		return "none"
	}
	return fmt.Sprintf("ApprovalMode(%d)", int(m))
}

// ApprovalRequest is what an approver is asked to decide.
type ApprovalRequest struct {
	Command  string          // the whole command as the model wrote it
	Decision policy.Decision // why the policy asks (Verdict Ask), or Allow under ApproveAll
}

// Approval is an approver's answer.
type Approval struct {
	Approved bool
	// Remember applies the same answer to the identical command for the
	// rest of the Shell's life.
	Remember bool
	// Reason is told to the model when the command is refused.
	Reason string
}

// Approver decides whether a command may run. An error refuses the command
// and is reported to the host.
type Approver func(ctx context.Context, req ApprovalRequest) (Approval, error)

// PolicyError is a refusal by the policy or the approver; its message is
// what the model reads.
type PolicyError struct {
	Kind     error // ErrDenied or ErrNotApproved
	Decision policy.Decision
	Msg      string
}

// Error returns the message for the model.
func (e *PolicyError) Error() string { return e.Msg }

// Unwrap returns Kind.
func (e *PolicyError) Unwrap() error { return e.Kind }

// authorizePolicy applies the policy and the approval mode to command.
func (s *Shell) authorizePolicy(ctx context.Context, command string) *PolicyError {
	d := s.decisions.check(s.policy, command)
	switch {
	case d.Verdict != policy.Allow && d.Verdict != policy.Ask: // Deny, or an invalid verdict
		return &PolicyError{Kind: ErrDenied, Decision: d, Msg: d.Reason}
	case d.Verdict == policy.Allow && s.opts.ApprovalMode != ApproveAll:
		return nil
	case d.Verdict == policy.Ask && s.opts.ApprovalMode == ApproveNone:
		return nil
	}
	if s.opts.Approve == nil {
		return &PolicyError{Kind: ErrNotApproved, Decision: d,
			Msg: "This command needs approval and no one is available to approve it. " + d.Reason}
	}
	if ok, known := s.remembered(command); known {
		if ok {
			return nil
		}
		return &PolicyError{Kind: ErrNotApproved, Decision: d, Msg: "This command was refused earlier."}
	}
	a, err := s.opts.Approve(ctx, ApprovalRequest{Command: command, Decision: d})
	if err != nil {
		s.log.Warn("shellcap: approver failed", "err", err)
		return &PolicyError{Kind: ErrNotApproved, Decision: d,
			Msg: "This command needs approval, which could not be asked for (" + err.Error() + "). " + d.Reason}
	}
	if a.Remember {
		s.rememberApproval(command, a.Approved)
	}
	if a.Approved {
		return nil
	}
	msg := "The user did not approve this command."
	if a.Reason != "" {
		msg += " Reason: " + a.Reason
	}
	return &PolicyError{Kind: ErrNotApproved, Decision: d, Msg: msg}
}

func (s *Shell) remembered(command string) (approved, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	approved, known = s.approvals[command]
	return approved, known
}

func (s *Shell) rememberApproval(command string, approved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approvals == nil {
		s.approvals = map[string]bool{}
	}
	s.approvals[command] = approved
}
