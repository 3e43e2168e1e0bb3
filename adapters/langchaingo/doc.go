// Package langchaingo offers shellcap's tools to LangChainGo
// (github.com/tmc/langchaingo) agents and models, as a thin binding over
// package toolset: the tools, their descriptions, schemas, texts and
// behaviour are the toolset's.
//
// Two ways in, both bound to one toolset conversation (its bash session,
// its jobs, its remembered approvals):
//
//   - Adapter.Tools gives tools.Tool values for the agents package (ReAct
//     agents: agents.NewOneShotAgent, agents.NewConversationalAgent, and
//     agents.NewOpenAIFunctionsAgent), run by agents.Executor. The model
//     writes each tool's input as a JSON object matching the tool's input
//     schema, which its Description shows.
//   - Adapter.Definitions gives llms.Tool function definitions for native
//     tool calling (llms.WithTools), and Adapter.Respond runs the tool calls
//     of a model's reply and returns the messages to send back: the
//     assistant's tool calls, then one llms.ToolCallResponse per call.
//
// # Approvals
//
// LangChainGo has no human-in-the-loop mechanism. Put toolset.Approve in the
// Shell's shellcap.Options.Approve so that its policy decides; for a command
// the policy answers "ask", the adapter calls Options.Approve synchronously
// (a terminal prompt, a web form) while the tool call waits. Without
// Options.Approve, such a command is refused with the policy's reason: never
// silently allowed.
package langchaingo
