// Package mcpserver serves shellcap over the Model Context Protocol, so
// any MCP client (Claude Code, Claude Desktop, Cursor, ADK's MCP toolset,
// the TypeScript SDK) can give its model a shell it can trust.
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: "."})
//	srv, _ := mcpserver.New(mcpserver.Options{Shell: sh})
//	err := srv.MCP().Run(ctx, &mcp.StdioTransport{})
//
// Every tool returns exactly [shellcap.Result.Text] as its text content and
// the structured result beside it. Refusals by the command policy, bad
// arguments and host-side failures the model can act on (a vanished
// workspace, no bash on the PATH, a closing Shell) are tool results with
// isError set, never protocol errors; only a cancelled call and an unknown
// tool are. Messages repeat at most 100 characters of the model's input.
// While a command runs,
// output chunks are sent as progress notifications when the client asked
// for progress; a cancelled call stops the command's whole process group.
//
// The tools themselves (definitions, schemas, argument decoding, texts,
// conversations) are package toolset's; this package binds them to MCP:
// each MCP session is a toolset conversation, output goes out as progress
// notifications, and approvals are asked by elicitation ([ElicitApprover]).
// This is the only package that imports the MCP SDK.
//
// # Security
//
// Over HTTP the server requires a bearer token (of at least 16 bytes)
// whenever it listens beyond loopback, checks Origin and Host against DNS
// rebinding, limits request bodies, caps and reaps sessions; see
// [HTTPOptions]. Each MCP session has its own scope: bash shell, notices
// of the jobs it started, remembered approvals, job list (see
// [Options.ShareJobs]). Approval answers count only with round-trip state
// the server issued (HMAC over nonce, expiry, session and command; good
// once); see [ElicitApprover]. Over stdio, malformed input is answered
// with JSON-RPC errors and never ends the server. [Server.CancelCalls]
// stops every command in flight; with shellcap.Options.DieWithProcess the
// commands die with the process even on SIGKILL.
package mcpserver
