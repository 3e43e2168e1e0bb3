package shellgenkit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/shellcap/shellcap"
	shellgenkit "github.com/shellcap/shellcap/adapters/genkit"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// A model asks for a command the policy wants approved: Generate stops at
// Genkit's interrupt, the user approves, and the restarted generation runs
// it. The model here is scripted, so the example runs offline.
func Example() {
	ws, _ := os.MkdirTemp("", "genkit-example")
	defer os.RemoveAll(ws)
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}, Approve: toolset.Approve})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sh.Close()
	ts, err := toolset.New(toolset.Options{Shell: sh})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ts.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := genkit.Init(ctx)
	tools := shellgenkit.Define(g, ts)
	model := genkit.DefineModel(g, "example/scripted", &ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, Tools: true}}, scripted)

	conv := ts.Conversation("thread-1")
	defer conv.Close()
	ctx = shellgenkit.WithConversation(ctx, conv)
	resp, err := genkit.Generate(ctx, g, ai.WithModel(model), ai.WithTools(tools.Refs()...), ai.WithPrompt("make notes.txt"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range resp.Interrupts() {
		q, _ := shellgenkit.Question(p)
		fmt.Println("asks about:", q.Command)
		restart, _ := tools.Restart(p, toolset.Answer{Approved: true}) // the user said yes
		resp, err = genkit.Generate(ctx, g, ai.WithModel(model), ai.WithTools(tools.Refs()...),
			ai.WithMessages(resp.History()...), ai.WithToolRestarts(restart))
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	_, err = os.Stat(filepath.Join(ws, "notes.txt"))
	fmt.Println("created:", err == nil)
	fmt.Println(resp.Text())
	// Output:
	// asks about: touch notes.txt && echo made
	// created: true
	// the tool said: [stdout]
	// made
}

// scripted is the example's model: it asks for one command, then repeats
// what the tool said.
func scripted(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	reply := &ai.Message{Role: ai.RoleModel}
	last := req.Messages[len(req.Messages)-1]
	if last.Role == ai.RoleTool {
		out := last.Content[0].ToolResponse.Output.(map[string]any)
		reply.Content = []*ai.Part{ai.NewTextPart(fmt.Sprint("the tool said: ", out["text"]))}
	} else {
		reply.Content = []*ai.Part{ai.NewToolRequestPart(&ai.ToolRequest{
			Name: toolset.RunCommand, Input: map[string]any{"command": "touch notes.txt && echo made"},
		})}
	}
	return &ai.ModelResponse{Request: req, Message: reply}, nil
}
