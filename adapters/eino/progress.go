package eino

import (
	"context"
	"sync"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap"
)

func init() {
	// A Progress event is kept in the agent's run session, which Eino
	// checkpoints (gob) when a later call interrupts.
	schema.RegisterName[*Progress]("shellcap_eino_progress")
}

// ProgressLimit is the most output, in bytes, one tool call sends to the
// agent's event stream with Config.Progress; the chunk that reaches it is
// cut and marked Truncated, and the rest is not sent. (Eino keeps every
// event of a run in memory, and in its checkpoints, until the run ends.)
const ProgressLimit = 64 << 10

// Progress is a piece of a running command's output, sent to the agent's
// event stream while the tool call runs (Config.Progress): an
// adk.AgentEvent whose Output.CustomizedOutput is a *Progress. The model
// never reads it; it reads the tool's result once the call is done.
type Progress struct {
	// ToolCallID is the tool call's ID (compose.GetToolCallID).
	ToolCallID string
	// Tool is the tool's name.
	Tool string
	// Stream is the stream the output came from.
	Stream shellcap.Stream
	// Data is the output, as the command wrote it.
	Data []byte
	// Truncated reports the last chunk sent for the call: the call's
	// output reached ProgressLimit.
	Truncated bool
}

// progress sends one call's output to the agent's event stream, until the
// call returns (Eino's event channel panics on a send after the run ends).
type progress struct {
	ctx    context.Context
	tool   string
	mu     sync.Mutex
	sent   int
	closed bool
}

func newProgress(ctx context.Context, tool string) *progress {
	return &progress{ctx: ctx, tool: tool}
}

// output sends data as a Progress event; outside a ChatModelAgent's run
// (a bare ToolsNode) adk.SendEvent refuses and nothing is sent.
func (p *progress) output(s shellcap.Stream, data []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.sent >= ProgressLimit || len(data) == 0 {
		return
	}
	ev := &Progress{ToolCallID: compose.GetToolCallID(p.ctx), Tool: p.tool, Stream: s}
	if room := ProgressLimit - p.sent; len(data) >= room {
		data, ev.Truncated = data[:room], true
	}
	ev.Data = append([]byte(nil), data...)
	p.sent += len(data)
	_ = adk.SendEvent(p.ctx, &adk.AgentEvent{Output: &adk.AgentOutput{CustomizedOutput: ev}})
}

// close ends the sending: the call returned.
func (p *progress) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
}
