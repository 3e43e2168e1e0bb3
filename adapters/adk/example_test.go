package adk_test

import (
	"context"
	"fmt"
	"iter"
	"os"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// exampleModel stands in for Gemini: it calls run_command with the user's
// text as the command and prints the tool response it gets back.
type exampleModel struct{}

func (exampleModel) Name() string { return "example" }

func (exampleModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		last := req.Contents[len(req.Contents)-1].Parts[0]
		if r := last.FunctionResponse; r != nil {
			fmt.Printf("model reads: %v\n", r.Response)
			yield(&model.LLMResponse{Content: genai.NewContentFromText("done", genai.RoleModel)}, nil)
			return
		}
		call := &genai.FunctionCall{ID: "call-1", Name: toolset.RunCommand, Args: map[string]any{"command": last.Text}}
		yield(&model.LLMResponse{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: call}}}}, nil)
	}
}

// An llmagent with shellcap's tools, run by ADK's runner. A command the
// policy asks about becomes ADK's tool confirmation; the application answers
// it and the runner resumes the call.
func Example() {
	ws, _ := os.MkdirTemp("", "adk-example")
	defer os.RemoveAll(ws)
	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}, Approve: toolset.Approve})
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()

	coder, _ := llmagent.New(llmagent.Config{
		Name:     "coder",
		Model:    exampleModel{},
		Toolsets: []tool.Toolset{adk.New(ts, adk.Options{})},
	})
	sessions := session.InMemoryService()
	r, _ := runner.New(runner.Config{AppName: "example", Agent: coder, SessionService: sessions})
	s, _ := sessions.Create(context.Background(), &session.CreateRequest{AppName: "example", UserID: "me"})
	// run runs one turn and returns the confirmations it asks for.
	run := func(msg *genai.Content) (asks []adk.Request) {
		for ev, err := range r.Run(context.Background(), "me", s.Session.ID(), msg, agent.RunConfig{}) {
			if err != nil {
				fmt.Println(err)
				return nil
			}
			asks = append(asks, adk.Requests(ev)...)
		}
		return asks
	}

	run(genai.NewContentFromText("ls", genai.RoleUser)) // read-only: runs

	asks := run(genai.NewContentFromText("touch notes.txt", genai.RoleUser))
	fmt.Println("user is asked:", asks[0].Confirmation.Command)
	run(asks[0].Approve(false)) // the runner resumes the call
	_, err := os.Stat(ws + "/notes.txt")
	fmt.Println("created:", err == nil)
	// Output:
	// model reads: map[output:(no output)]
	// user is asked: touch notes.txt
	// model reads: map[output:(no output)]
	// created: true
}
