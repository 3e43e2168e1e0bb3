package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// approvalInput is the input request ID of an approval elicitation.
const approvalInput = "approve_command"

// modernProtocol is the first protocol revision whose clients answer a
// server's questions by retrying the call (input requests) instead of
// answering an elicitation request.
const modernProtocol = "2026-07-28"

// ErrNoElicitation reports a client that cannot ask its user: it declared
// no elicitation, or only URL-mode elicitation.
var ErrNoElicitation = errors.New("the MCP client cannot ask its user for approval (no form elicitation support)")

// ErrElicitationFailed reports a question the client did not answer.
var ErrElicitationFailed = errors.New("the MCP client did not answer the approval request")

// ElicitApprover is a [shellcap.Approver] that asks the user through the
// MCP client (form elicitation) about each command the policy wants
// approved. Put it in shellcap.Options.Approve for a Shell served by this
// package. Clients of protocol 2026-07-28 get the question as an input
// request of the tool call; older clients get an elicitation request. A
// client that declared no form elicitation, or that fails to answer, gets
// the command refused with the reason, as a tool result. An answer the
// user asks to remember holds for the rest of that MCP session only.
//
// It is [toolset.Approve] with the MCP server's hooks; outside a tool
// call of this package it refuses with ErrNoElicitation.
func ElicitApprover(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
	if !toolset.InCall(ctx) {
		return shellcap.Approval{}, ErrNoElicitation
	}
	return toolset.Approve(ctx, req)
}

// approvalHooks are the approval hooks of one call. A client that cannot
// show a form gets ErrNoElicitation; one of protocol 2026-07-28 is asked
// by an input request (an interrupt: the call is retried with the answer,
// which counts only with round-trip state this server issued for this
// session and command); an older client is asked by an elicitation
// request while the call waits.
func (s *Server) approvalHooks(req *mcp.CallToolRequest, conv *toolset.Conversation) toolset.Hooks {
	ss := req.Session
	if ss == nil || !canElicit(ss) {
		return toolset.Hooks{Approve: func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, ErrNoElicitation
		}}
	}
	if !modern(ss) {
		return toolset.Hooks{Approve: func(ctx context.Context, q toolset.Question) (toolset.Answer, error) {
			res, err := ss.Elicit(ctx, question(q))
			if err != nil {
				return toolset.Answer{}, fmt.Errorf("%w: %v", ErrElicitationFailed, err)
			}
			return answerFrom(q.Command, res), nil
		}}
	}
	h := toolset.Hooks{Interrupt: true}
	command, ok := commandOf(req.Params.Arguments)
	if st := req.Params.RequestState; st != "" && ok && s.rounds.redeem(st, roundKey(conv), command) {
		if res, _ := req.Params.InputResponses[approvalInput].(*mcp.ElicitResult); res != nil {
			a := answerFrom(command, res)
			h.Answer = &a
		}
	}
	return h
}

// roundKey binds approval round trips to the conversation of a session.
func roundKey(conv *toolset.Conversation) string {
	if conv == nil {
		return "stateless"
	}
	return conv.ID()
}

// question is the elicitation form asking about q.
func question(q toolset.Question) *mcp.ElicitParams {
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: q.Message(),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"remember": map[string]any{"type": "boolean", "title": "Allow this exact command again without asking", "default": false},
				"reason":   map[string]any{"type": "string", "title": "Note for the agent if you decline"},
			},
		},
	}
}

func answerFrom(command string, res *mcp.ElicitResult) toolset.Answer {
	a := toolset.Answer{Command: command, Approved: res.Action == "accept"}
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
func (s *Server) inputRequest(conv *toolset.Conversation, q toolset.Question) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: question(q)},
		RequestState:  s.rounds.issue(roundKey(conv), q.Command),
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
