// Package toolset defines shellcap's tools once, for every host: the MCP
// server (package mcpserver) and the adapters for agent frameworks and
// provider SDKs are thin bindings over it. It imports no framework.
//
// Each [Tool] has its name, title, description, hand-written JSON Schema
// for input and output (never inferred from struct tags; see
// [Tool.StrictInputSchema] for providers that require strict schemas),
// annotations, and a handler: raw JSON arguments and [Hooks] in, a
// [Result] out — the text the model reads, the structured result and
// whether it is an error. Invalid arguments get one precise text
// whichever host the call came through.
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: ".", Approve: toolset.Approve})
//	ts, _ := toolset.New(toolset.Options{Shell: sh})
//	conv := ts.Conversation(sessionID) // one per conversation with the model
//	defer conv.Close()
//	for _, t := range ts.Tools() {
//		register(t.Name, t.Description, t.InputSchema) // the framework's way
//	}
//	res, err := conv.Call(ctx, name, rawArgs, toolset.Hooks{})
//	reply(res.ModelText(), res.IsError)
//
// # Conversations
//
// A [Conversation] is what belongs to one conversation with the model: the
// bash tool's persistent session, the jobs it started (list_commands shows
// only those, unless Options.ShareJobs), notices of its jobs that finished,
// and approvals its user chose to remember. The host maps its own sessions
// to conversation IDs and closes a conversation when its session ends.
//
// # Approvals
//
// The Shell's policy decides; the host only carries the question. Put
// [Approve] in shellcap.Options.Approve: for a command the policy answers
// "ask", it asks through the hooks of the call in progress. A synchronous
// host (an MCP elicitation, a CLI prompt) sets Hooks.Approve. An
// interrupt-style host (ADK confirmations, Eino and Genkit interrupts, MCP
// input requests) sets Hooks.Interrupt: the call ends at once with
// Result.Pending holding the [Question] and nothing run, and the host
// resumes it later by calling again with the same arguments and
// Hooks.Answer. An answer counts once, and only for the exact command it
// names; a different command is asked about again.
//
// # Security
//
// A command that needs approval is never silently allowed: a host that can
// ask no one (zero Hooks), an approver that fails and a declined answer
// all refuse it, with the policy's reason or the user's.
package toolset
