// Package adk binds shellcap's tools (package toolset) to Google's Agent
// Development Kit (google.golang.org/adk/v2): each tool is an ADK function
// tool with the toolset's name, description and hand-written JSON Schema,
// offered to an llmagent as one tool.Toolset.
//
//	sh, _ := shellcap.New(shellcap.Options{Workspace: dir, Approve: toolset.Approve})
//	ts, _ := toolset.New(toolset.Options{Shell: sh, Jobs: mgr})
//	agent, _ := llmagent.New(llmagent.Config{
//		Name: "coder", Model: m,
//		Toolsets: []tool.Toolset{adk.New(ts, adk.Options{})},
//	})
//
// # Conversations
//
// Each ADK session (app, user and session ID) is one toolset conversation:
// the bash tool's shell, the jobs list_commands shows and remembered
// approvals belong to it and carry across the session's turns. Call
// Toolset.EndSession when a session is deleted.
//
// # Approvals
//
// The Shell's policy decides. A command it answers "ask" is put to the user
// through ADK's tool confirmation: the call requests a confirmation
// (ctx.RequestConfirmation, hint Question.Message, payload a Confirmation),
// the runner ends the turn with an adk_request_confirmation call (Requests
// finds them in an event), and the application answers with a function
// response of that name carrying {"confirmed": bool, "payload": Confirmation}
// (Request.Approve, Request.Decline). The runner then dispatches the original
// call again, and it runs only if the answer approves that exact command. A
// declined command is refused, with the user's reason when one is given.
//
// # Security
//
// The adapter never allows a command the policy asks about by itself: it
// always asks through ADK's confirmation, and the toolset runs the command
// only on an answer that approves that exact command (the payload's Command,
// or the command the model wrote when the payload names none). The answer
// is the application's: whoever can send the session's messages can
// approve, so send confirmation responses only from the user's own UI.
//
// # Results
//
// The model reads the toolset's text under "output", or under "error" when
// the call failed (a refusal, a bad argument, an unknown job), as Gemini's
// function responses expect. A command that exits non-zero is not an error:
// its exit code is in the text.
//
// # Streaming
//
// ADK's function tools return one response. Its streaming function tools
// get no partial events under runner.Run (their chunks are joined into one
// response), and under runner.RunLive ADK v2.2.0 writes their chunks and
// the function responses to the live connection from two goroutines without
// a lock, which panics in gorilla/websocket. The writes happen on a
// connection genai creates and ADK keeps internal, so no wrapper outside ADK
// can serialise them (docs/integrations/adk.md, "Why live mode is not
// offered"); the tools here are plain function tools. Options.Output and
// Options.Event receive a running command's output and job events as they
// arrive, for the application to show.
package adk
