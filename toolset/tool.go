package toolset

import (
	"context"
	"encoding/json"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// Tool is one tool, defined once: what a host tells the model about it,
// and its handler. Its fields are shared by every host of the toolset:
// read them, copy them, but do not modify them.
type Tool struct {
	// Name is the tool's name (RunCommand, BashTool, ...).
	Name string
	// Title is a short human-readable title.
	Title string
	// Description is what the model reads about the tool.
	Description string
	// InputSchema is the JSON Schema of the arguments, written by hand
	// (never inferred from struct tags). See [Tool.StrictInputSchema] for
	// providers that require strict schemas.
	InputSchema map[string]any
	// OutputSchema is the JSON Schema of Result.Structured; nil when the
	// tool declares none.
	OutputSchema map[string]any
	// Annotations are hints about the tool's effects.
	Annotations Annotations

	ts      *Toolset
	handler func(ctx context.Context, c *Conversation, args json.RawMessage) (*Result, error)
}

// Annotations are hints about what a tool does, as MCP and several
// frameworks declare them.
type Annotations struct {
	ReadOnly    bool `json:"read_only,omitempty"`   // it changes nothing
	Destructive bool `json:"destructive,omitempty"` // it may change or delete things (meaningful when not ReadOnly)
	Idempotent  bool `json:"idempotent,omitempty"`  // calling it again with the same arguments does nothing more
	OpenWorld   bool `json:"open_world,omitempty"`  // it may reach beyond the host (the network)
}

// Hooks are what a host gives one tool call: where output goes as it
// arrives, and how the user is asked to approve a command. The zero value
// reports nothing and can ask no one, so a command the policy wants
// approved is refused with the policy's reason.
type Hooks struct {
	// Output receives a running command's output as it arrives (run_command
	// until a promotion, shell). It must not block for long. Nil drops it.
	Output func(stream shellcap.Stream, data []byte)
	// Event receives the shell tool's job events (started, output,
	// finished). Nil drops them.
	Event func(jobs.ShellEvent)

	// Approve asks the user synchronously (an MCP elicitation, a CLI
	// prompt) and returns the answer; an error refuses the command with
	// the policy's reason. Used when Interrupt is false.
	Approve func(ctx context.Context, q Question) (Answer, error)
	// Interrupt asks by ending the call: the Result has Pending set to the
	// question and nothing runs; the host resumes by calling again with
	// the same arguments and Answer set (ADK confirmations, Eino and
	// Genkit interrupts, MCP input requests).
	Interrupt bool
	// Answer is the user's answer to the question a previous round of
	// this call left pending. It counts only for the command it names
	// (Answer.Command); any other command is asked about again.
	Answer *Answer

	// JobID, when set, is the ID of the job this call starts, for a host
	// that may repeat a call (a retried durable activity): start_command
	// passes it as jobs.StartRequest.ID and the shell tool, in either
	// mode, as jobs.ShellRequest.ID, so the repeated call re-attaches to
	// the job the first one started instead of starting a second process
	// (its text says so and still gives the job's ID). It must be 32
	// lower-case hex digits (jobs.DeriveID makes one from, say, a workflow
	// run ID and an activity ID); anything else is refused with a result
	// whose text says why. run_command, when it may promote (Jobs and
	// ForegroundTimeout set), runs its command as that job
	// (jobs.Manager.RunWithID): a repeated call waits on the job the first
	// one started, promoted under the same ID. The other tools ignore it:
	// the bash tool's jobs keep fresh IDs. Empty: fresh IDs.
	JobID string

	// OnStart, when set, is called once run_command's command has started
	// on the Shell, with the PID of its shell, which leads its process
	// group (shellcap.Request.OnStart): for a host that records its
	// foreground commands, such as a durable worker that must find them
	// again after it was killed. The other tools do not call it. Nil:
	// nothing is called.
	OnStart func(pid int)
}

// Call runs the tool in conversation c (nil: a stateless call, see
// [Toolset.Stateless]) with the raw JSON arguments (empty or null is no
// arguments). The error is non-nil only when ctx ended; refusals, bad
// arguments and host-side failures are results with IsError set.
func (t *Tool) Call(ctx context.Context, c *Conversation, args json.RawMessage, hooks Hooks) (*Result, error) {
	if c == nil {
		c = t.ts.Stateless()
	}
	ctx, st := withCall(ctx, c, t.Name, hooks)
	res, err := t.handler(ctx, c, args)
	if err != nil {
		return nil, err
	}
	if st.pending != nil {
		q := *st.pending
		return &Result{Text: "The command awaits the user's approval: " + Echo(q.Command), Pending: &q}, nil
	}
	if res.notices {
		c.finish(res, res.reported...)
	}
	return res, nil
}
