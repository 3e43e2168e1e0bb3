package mcpserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type headerKey struct{}

// withHeader gives a tool call's context the headers of the HTTP request
// it came in, for a Remote that routes by them (see RequestHeader).
func withHeader(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Extra == nil || req.Extra.Header == nil {
		return ctx
	}
	return context.WithValue(ctx, headerKey{}, req.Extra.Header)
}

// RequestHeader returns the headers of the HTTP request a tool call came
// in, from the context the server gives the call's toolset (and so
// Options.Remote); nil for a call over stdio or outside a tool call.
func RequestHeader(ctx context.Context) http.Header {
	h, _ := ctx.Value(headerKey{}).(http.Header)
	return h
}
