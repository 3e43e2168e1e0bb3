// Package anthropic offers shellcap's tools to Claude through the Anthropic
// Go SDK (github.com/anthropics/anthropic-sdk-go/v2): the toolset's bash tool
// as Anthropic's own client-side bash tool (bash_20250124: "command", or
// "restart": true), backed by the persistent bash session of one
// toolset.Conversation, and the other tools (run_command and the job tools:
// start_command, check_command, wait_command, send_input, stop_command,
// list_commands, shell) as custom tools for the SDK's tool runner.
//
// It is a thin binding over package toolset: the names, descriptions,
// schemas, texts and behaviour are the toolset's.
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: ".", Approve: toolset.Approve})
//	ts, _ := toolset.New(toolset.Options{Shell: sh, Jobs: manager})
//	conv := ts.Conversation("chat-1") // one per conversation with the model
//	defer conv.Close()
//	tools, _ := anthropic.New(ts, conv, anthropic.Options{Approve: ask})
//	runner := tools.NewToolRunner(&client.Beta.Messages, params)
//	msg, err := runner.RunToCompletion(ctx)
//
// # Errors
//
// A call the toolset reports as an error (a refused command, a bad argument,
// an unknown job) reaches the model as a tool_result with is_error set. The
// SDK's tool runner writes such a result as "Error: " and the text; Call
// and BetaCall, for a loop of your own over Messages.New or
// Beta.Messages.New, give the text unchanged. A command that ran and
// exited non-zero is not an error: its text says "[exit code: N]".
//
// # Approvals
//
// The Anthropic API has no human-in-the-loop mechanism of its own, so the
// question is asked synchronously, while the tool call runs: put
// toolset.Approve in the Shell's Options.Approve and a function that asks
// the user in Options.Approve. Without one, a command the policy answers
// "ask" is refused with the policy's reason, never run.
package anthropic
