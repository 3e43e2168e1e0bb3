package eino_test

import (
	"context"
	"fmt"
	"os"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"

	shelleino "github.com/shellcap/shellcap/adapters/eino"
)

// Shellcap's tools in Eino's ToolsNode: the model's tool call runs a real
// command, and the tool message carries shellcap's text.
func Example() {
	ws, _ := os.MkdirTemp("", "eino-example")
	defer os.RemoveAll(ws)
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Approve: toolset.Approve})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	conv := ts.Conversation("thread-1")
	defer conv.Close()

	tools, _ := shelleino.Tools(shelleino.Config{Toolset: ts, Conversation: conv})
	node, _ := compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: tools})
	out, err := node.Invoke(context.Background(), schema.AssistantMessage("", []schema.ToolCall{{
		ID:       "call-1",
		Function: schema.FunctionCall{Name: toolset.BashTool, Arguments: `{"command":"echo hello; false"}`},
	}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Content)
	// Output:
	// [stdout]
	// hello
	//
	// [exit code: 1]
}

// A command the policy asks about interrupts the agent; the host shows the
// question and resumes the interrupt with the user's answer.
func Example_approval() {
	ws, _ := os.MkdirTemp("", "eino-example")
	defer os.RemoveAll(ws)
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}, Approve: toolset.Approve})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	conv := ts.Conversation("thread-1")
	defer conv.Close()
	tools, _ := shelleino.Tools(shelleino.Config{Toolset: ts, Conversation: conv})

	ctx := context.Background()
	agent, _ := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "coder",
		Description: "runs commands",
		Model:       &oneCall{name: toolset.RunCommand, args: `{"command":"touch notes.txt"}`},
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: tools}},
	})
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &memStore{}})

	var pending *adk.InterruptCtx
	for ev := range events(runner.Query(ctx, "make a notes file", adk.WithCheckPointID("turn-1"))) {
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if ic.IsRootCause {
					pending = ic
				}
			}
		}
	}
	q := pending.Info.(toolset.Question)
	fmt.Println("asks:", q.Command)

	iter, _ := runner.ResumeWithParams(ctx, "turn-1", &adk.ResumeParams{
		Targets: map[string]any{pending.ID: toolset.Answer{Approved: true}},
	})
	for ev := range events(iter) {
		if mo := ev.Output; mo != nil && mo.MessageOutput != nil && mo.MessageOutput.Role == schema.Tool {
			fmt.Println("tool said:", mo.MessageOutput.Message.Content)
		}
	}
	_, err = os.Stat(ws + "/notes.txt")
	fmt.Println("created:", err == nil)
	// Output:
	// asks: touch notes.txt
	// tool said: (no output)
	// created: true
}

// events ranges over an agent's events.
func events(iter *adk.AsyncIterator[*adk.AgentEvent]) func(func(*adk.AgentEvent) bool) {
	return func(yield func(*adk.AgentEvent) bool) {
		for {
			ev, ok := iter.Next()
			if !ok || !yield(ev) {
				return
			}
		}
	}
}

// oneCall is a stand-in chat model: it calls one tool, then says it is
// done.
type oneCall struct {
	name, args string
}

func (m *oneCall) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	if last := in[len(in)-1]; last.Role == schema.Tool {
		return schema.AssistantMessage("done", nil), nil
	}
	return schema.AssistantMessage("", []schema.ToolCall{{ID: "call-1", Function: schema.FunctionCall{Name: m.name, Arguments: m.args}}}), nil
}

func (m *oneCall) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *oneCall) WithTools([]*schema.ToolInfo) (model.ToolCallingChatModel, error) { return m, nil }
