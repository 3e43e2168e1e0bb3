package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
)

// approvalInput is the input request ID of an approval elicitation.
const approvalInput = "approve_command"

// approvalRound carries one tool call's approval state through the Shell
// to ElicitApprover: the client's answers from a retried call, and the
// question to ask when there is no answer yet.
type approvalRound struct {
	session   *mcp.ServerSession
	responses mcp.InputResponseMap
	asked     *mcp.ElicitParams
}

type approvalKey struct{}

// withApproval prepares the approval state for one tool call.
func withApproval(ctx context.Context, req *mcp.CallToolRequest, command string) (context.Context, *approvalRound) {
	r := &approvalRound{session: req.Session}
	if req.Params.RequestState == approvalState(command) {
		r.responses = req.Params.InputResponses
	}
	return context.WithValue(ctx, approvalKey{}, r), r
}

// approvalState ties a client's answer to the command it was asked about.
func approvalState(command string) string {
	sum := sha256.Sum256([]byte(command))
	return "approve:" + hex.EncodeToString(sum[:])
}

// ErrNoElicitation reports a client that cannot ask its user.
var ErrNoElicitation = errors.New("the MCP client cannot ask its user for approval (no elicitation support)")

// errInputRequired ends the first round of a call that needs the user's
// answer; the tool then returns an input request instead of a result.
var errInputRequired = errors.New("waiting for the user's answer")

// ElicitApprover is a [shellcap.Approver] that asks the user through the
// MCP client (elicitation) about each command the policy wants approved.
// Put it in shellcap.Options.Approve for a Shell served by this package.
// The question goes out as an input request of the tool call (so it works
// with clients of every protocol version); a client without elicitation
// support gets the command refused with the policy's reason.
func ElicitApprover(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
	r, _ := ctx.Value(approvalKey{}).(*approvalRound)
	if r == nil || r.session == nil || !canElicit(r.session) {
		return shellcap.Approval{}, ErrNoElicitation
	}
	if res, ok := r.responses[approvalInput].(*mcp.ElicitResult); ok {
		return approvalFrom(res), nil
	}
	r.asked = &mcp.ElicitParams{
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
	return shellcap.Approval{}, errInputRequired
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

// inputRequest turns a pending question into the tool's answer.
func (r *approvalRound) inputRequest(command string) *mcp.CallToolResult {
	if r.asked == nil {
		return nil
	}
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalInput: r.asked},
		RequestState:  approvalState(command),
	}
}

func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}
