// Package openai binds shellcap's tools (package toolset) to the OpenAI Go
// SDK, github.com/openai/openai-go/v3: function tools for Chat Completions
// and the Responses API, and the Responses API's client-executed shell and
// local_shell tools run on a shellcap Shell.
//
// The SDK has no tool runner: the host sends the tools, reads the model's
// tool calls from the reply, and sends their outputs back. An Adapter does
// the middle step: it runs each call of a shellcap tool in the toolset
// conversation of the thread and returns the messages or input items the
// model reads. It adds no tool logic: names, descriptions, schemas and texts
// are the toolset's. Import it under another name beside the SDK's
// package openai, shellopenai say:
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: ".", Approve: toolset.Approve})
//	ts, _ := toolset.New(toolset.Options{Shell: sh})
//	ad, _ := shellopenai.New(shellopenai.Options{Toolset: ts})
//	conv := ts.Conversation(threadID)
//	params.Tools = ad.ChatTools()
//	reply, _ := client.Chat.Completions.New(ctx, params)
//	msg := reply.Choices[0].Message
//	outs, _ := ad.ChatToolMessages(ctx, conv, msg)
//	params.Messages = append(params.Messages, msg.ToParam())
//	params.Messages = append(params.Messages, outs...)
//
// # Strict schemas
//
// Function tools are offered in strict mode with the toolset's strict
// schemas (Tool.StrictInputSchema): every property required, optional ones
// nullable. Options.NonStrict offers the plain schemas with strict off.
//
// # Shell tools
//
// A shell_call's commands run one after the other in the conversation's
// persistent bash session (the bash tool; run_command when the toolset
// offers no bash), so cd and exported variables carry over between calls.
// timeout_ms becomes each command's timeout and max_output_length cuts each
// command's stdout and stderr together to that many characters, keeping
// their ends; the command's notes and the conversation's finished-job
// notices follow in stderr. Each command's output carries an exit outcome
// with its exit code, or a timeout outcome. A local_shell_call runs its argv through
// run_command, in a fresh process, with its env and working_directory.
//
// A command that did not run (refused by the policy, bad arguments) has no
// exit code of its own: its output has the refusal in stderr and exit code
// 125, as the shellcap CLI reports it.
//
// # Approvals
//
// The OpenAI API has no human-in-the-loop step for function or shell tools,
// so approvals are synchronous: Options.Approve is asked, during the call,
// about each command the Shell's policy answers "ask" (put toolset.Approve
// in shellcap.Options.Approve). Without it such a command is refused with
// the policy's reason, never silently allowed.
package openai
