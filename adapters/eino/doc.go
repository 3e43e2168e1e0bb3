// Package eino binds shellcap's tools (package toolset) to CloudWeGo Eino:
// each tool is an Eino tool.InvokableTool and tool.StreamableTool, for a
// compose.ToolsNode or an adk.ChatModelAgent, and Backend is an Eino
// filesystem.ShellBackend, so Eino's filesystem middleware offers an
// execute tool backed by shellcap.
//
// The binding is thin: names, descriptions, schemas, argument checks,
// texts and the policy are the toolset's. What the model reads is the
// toolset's model text; a refused command or a bad argument is a tool
// result the model can act on, never a Go error that would end the run.
//
// # Approvals
//
// Approvals use Eino's interrupt mechanism. Put toolset.Approve in the
// Shell's Options.Approve. When the policy asks about a command, the tool
// call ends with an Eino interrupt (tool.StatefulInterrupt) whose info is
// the toolset.Question, and nothing runs. The host resumes the interrupt
// with the user's toolset.Answer as resume data (adk.Runner.ResumeWithParams
// with Targets{interruptID: toolset.Answer{...}}, or compose.ResumeWithData);
// the call runs again and the answer decides. An answer whose Command is
// empty is about the pending question's command. A resume that targets the
// call without an answer refuses the command; a resume that targets another
// interrupt leaves this one pending. A command is never run unasked.
//
// # Progress
//
// The model reads what a StreamableTool's chunks concatenate to, so
// StreamableRun sends the toolset's text once, when the call is done. A
// running command's output reaches the host as it arrives through
// Config.Output and, with Config.Progress, the event stream of the
// ChatModelAgent the call runs in: events whose Output.CustomizedOutput is
// a *Progress, which the model does not read.
package eino
