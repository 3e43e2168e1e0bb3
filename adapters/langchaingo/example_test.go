package langchaingo_test

import (
	"context"
	"fmt"
	"os"

	"github.com/shellcap/shellcap"
	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
)

// canned is a stand-in for a real model (openai.New(), anthropic.New(),
// ...): it replies with the next of its canned choices.
type canned []*llms.ContentChoice

func (c *canned) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	next := (*c)[0]
	*c = (*c)[1:]
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{next}}, nil
}

func (c *canned) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, options...)
}

// Native tool calling: offer the definitions, answer the model's tool
// calls with Respond, ask again.
func Example() {
	ws, _ := os.MkdirTemp("", "langchaingo-example")
	defer os.RemoveAll(ws)
	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, Approve: toolset.Approve})
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	conv := ts.Conversation("chat-1")
	defer conv.Close()
	shell := langchaingo.New(ts, conv, langchaingo.Options{})

	var model llms.Model = &canned{
		{ToolCalls: []llms.ToolCall{{ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "run_command", Arguments: `{"command":"echo hello; exit 3"}`}}}},
		{Content: "It said hello and exited with 3."},
	}
	ctx := context.Background()
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Say hello.")}
	for {
		resp, err := model.GenerateContent(ctx, msgs, llms.WithTools(shell.Definitions()))
		if err != nil {
			fmt.Println(err)
			return
		}
		choice := resp.Choices[0]
		if len(choice.ToolCalls) == 0 {
			fmt.Println(choice.Content)
			break
		}
		more, _ := shell.Respond(ctx, choice)
		msgs = append(msgs, more...)
		fmt.Println(more[1].Parts[0].(llms.ToolCallResponse).Content)
	}
	// Output:
	// [stdout]
	// hello
	//
	// [exit code: 3]
	// It said hello and exited with 3.
}

// A ReAct agent: the tools are tools.Tool values for agents.Executor. A
// command the policy asks about is put to Options.Approve.
func ExampleAdapter_Tools() {
	ws, _ := os.MkdirTemp("", "langchaingo-example")
	defer os.RemoveAll(ws)
	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}, Approve: toolset.Approve})
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	conv := ts.Conversation("agent-1")
	defer conv.Close()
	shell := langchaingo.New(ts, conv, langchaingo.Options{
		Approve: func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			fmt.Println("asked:", q.Command)
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		},
	})

	model := &canned{
		{Content: "Thought: I write the file.\nAction: run_command\nAction Input: {\"command\":\"echo hi > notes.txt\"}"},
		{Content: "Thought: I now know the final answer\nFinal Answer: notes.txt is written."},
	}
	exec := agents.NewExecutor(agents.NewOneShotAgent(model, shell.Tools()))
	out, err := chains.Run(context.Background(), exec, "Write notes.txt.")
	fmt.Println(out, err)
	b, _ := os.ReadFile(ws + "/notes.txt")
	fmt.Print(string(b))
	// Output:
	// asked: echo hi > notes.txt
	// notes.txt is written. <nil>
	// hi
}
