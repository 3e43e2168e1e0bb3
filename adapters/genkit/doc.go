// Package shellgenkit offers shellcap's tools to Genkit
// (github.com/firebase/genkit/go): each tool of a [toolset.Toolset] becomes
// a Genkit tool, registered on the Genkit instance with the toolset's name,
// description and hand-written input schema, so genkit.Generate dispatches
// the model's tool requests to shellcap.
//
// It is a thin binding: names, descriptions, schemas, texts and behaviour
// are the toolset's.
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: ".", Approve: toolset.Approve})
//	ts, _ := toolset.New(toolset.Options{Shell: sh, Jobs: mgr})
//	tools := shellgenkit.Define(g, ts)
//	ctx = shellgenkit.WithConversation(ctx, ts.Conversation(threadID))
//	resp, _ := genkit.Generate(ctx, g, ai.WithModelName("..."), ai.WithTools(tools.Refs()...), ai.WithPrompt("..."))
//
// # Conversations
//
// The conversation a call belongs to (the bash tool's session, the jobs it
// started, remembered approvals) comes from the context given to
// genkit.Generate: see [WithConversation]. A context without one runs the
// call in the toolset's stateless conversation (see [toolset.Toolset.Stateless]).
//
// # Approvals
//
// Approvals map onto Genkit's tool interrupts. A command the Shell's policy
// wants approved interrupts the tool instead of running: genkit.Generate
// returns with FinishReason "interrupted" and the tool request in
// resp.Interrupts(). [Question] reads what the user is asked; [Tools.Restart]
// turns the user's answer into a restart part for ai.WithToolRestarts, and
// the next genkit.Generate over resp.History() runs the command (approved)
// or tells the model it was refused and why (declined). The Shell must have
// toolset.Approve as its Options.Approve for the policy's "ask" to reach the
// user; without it the command is refused with the policy's reason.
//
// # Errors
//
// A tool call that fails (a refused command, an unknown job, invalid
// arguments) is not a Go error: the model gets an [Output] with IsError set
// and the toolset's text, and the generation goes on. The toolset, not
// Genkit's schema check, judges the arguments (a tool defined with
// genkit.DefineTool and an input schema would end genkit.Generate with
// Genkit's validation error instead), so invalid arguments get the
// toolset's one precise text, whichever host the call came through.
//
// # Progress
//
// Genkit gives a tool no way to stream: its ToolContext carries no
// streaming callback, and the ai.WithStreaming callback gets the tool
// responses once every tool of the turn has returned. [WithOutput] and
// [WithEvent] give the host a running command's output and the shell tool's
// job events as they arrive, through the context of genkit.Generate; the
// model reads the toolset's text when the call is done.
package shellgenkit
