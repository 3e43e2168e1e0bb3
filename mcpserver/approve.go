package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
)

// approvalInput is the input request ID of an approval elicitation.
const approvalInput = "approve_command"

// modernProtocol is the first protocol revision whose clients answer a
// server's questions by retrying the call (input requests) instead of
// answering an elicitation request.
const modernProtocol = "2026-07-28"

// approvalRound carries one tool call's approval state through the Shell
// to ElicitApprover: the session, its scope, the client's answer from a
// retried call (only when the call carried a round-trip state this server
// issued for this session and command), and the question to ask when
// there is no answer yet.
type approvalRound struct {
	srv     *Server
	session *mcp.ServerSession
	scope   *scope
	command string
	answer  *mcp.ElicitResult
	asked   *mcp.ElicitParams
}

type approvalKey struct{}

// withApproval prepares the approval state for one tool call. The answers
// of a retried call count only when its state redeems a question this
// server asked in this session about exactly this command; anything else
// is ignored, and the user is asked.
func (s *Server) withApproval(ctx context.Context, req *mcp.CallToolRequest, command string) (context.Context, *approvalRound) {
	sc := s.scopeOf(ctx, req.Session)
	r := &approvalRound{srv: s, session: req.Session, scope: sc, command: command}
	if st := req.Params.RequestState; st != "" && modern(req.Session) && s.rounds.redeem(st, sc.key, command) {
		r.answer, _ = req.Params.InputResponses[approvalInput].(*mcp.ElicitResult)
	}
	return context.WithValue(ctx, approvalKey{}, r), r
}

// ErrNoElicitation reports a client that cannot ask its user: it declared
// no elicitation, or only URL-mode elicitation.
var ErrNoElicitation = errors.New("the MCP client cannot ask its user for approval (no form elicitation support)")

// ErrElicitationFailed reports a question the client did not answer.
var ErrElicitationFailed = errors.New("the MCP client did not answer the approval request")

// errInputRequired ends the first round of a call that needs the user's
// answer; the tool then returns an input request instead of a result.
var errInputRequired = errors.New("waiting for the user's answer")

// ElicitApprover is a [shellcap.Approver] that asks the user through the
// MCP client (form elicitation) about each command the policy wants
// approved. Put it in shellcap.Options.Approve for a Shell served by this
// package. Clients of protocol 2026-07-28 get the question as an input
// request of the tool call; older clients get an elicitation request. A
// client that declared no form elicitation, or that fails to answer, gets
// the command refused with the reason, as a tool result. An answer the
// user asks to remember holds for the rest of that MCP session only.
func ElicitApprover(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
	r, _ := ctx.Value(approvalKey{}).(*approvalRound)
	if r == nil || r.session == nil || !canElicit(r.session) {
		return shellcap.Approval{}, ErrNoElicitation
	}
	if ok, known := r.srv.remembered(r.scope, req.Command); known {
		return shellcap.Approval{Approved: ok, Reason: "the user refused this command earlier"}, nil
	}
	question := &mcp.ElicitParams{
		Mode:    "form",
		Message: "The agent wants to run:\n\n" + req.Command + "\n\n" + req.Decision.Reason + "\n\nAllow it?",
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"remember": map[string]any{"type": "boolean", "title": "Allow this exact command again without asking", "default": false},
				"reason":   map[string]any{"type": "string", "title": "Note for the agent if you decline"},
			},
		},
	}
	var res *mcp.ElicitResult
	switch {
	case !modern(r.session):
		var err error
		if res, err = r.session.Elicit(ctx, question); err != nil {
			return shellcap.Approval{}, fmt.Errorf("%w: %v", ErrElicitationFailed, err)
		}
	case r.answer != nil && req.Command == r.command:
		res = r.answer
		r.answer = nil // one answer, one command
	default:
		r.asked = question
		return shellcap.Approval{}, errInputRequired
	}
	a := approvalFrom(res)
	if a.Remember {
		r.srv.remember(r.scope, req.Command, a.Approved)
	}
	a.Remember = false // remembered per session here, not by the Shell
	return a, nil
}

func approvalFrom(res *mcp.ElicitResult) shellcap.Approval {
	a := shellcap.Approval{Approved: res.Action == "accept"}
	if v, ok := res.Content["remember"].(bool); ok {
		a.Remember = v && a.Approved
	}
	if v, ok := res.Content["reason"].(string); ok {
		a.Reason = v
	}
	if res.Action == "cancel" && a.Reason == "" {
		a.Reason = "the user dismissed the request"
	}
	return a
}

// inputRequest turns a pending question into the tool's answer, with a
// fresh round-trip state bound to the session and the command.
func (r *approvalRound) inputRequest() *mcp.CallToolResult {
	if r.asked == nil {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: r.asked},
		RequestState:  r.srv.rounds.issue(r.scope.key, r.command),
	}
}

// canElicit reports whether the client declared form elicitation. An
// empty elicitation capability means form mode (protocol 2025-06-18); a
// URL-only client cannot show a form.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// modern reports whether the client answers questions by retrying the call.
func modern(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= modernProtocol
}
