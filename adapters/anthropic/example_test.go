package anthropic_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/anthropic"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// Claude drives a shellcap bash session through the SDK's tool runner; the
// Shell's policy asks before a command that writes, and the adapter puts the
// question to Options.Approve. Here a stand-in for the Messages API plays
// Claude, so the example runs offline.
func Example() {
	ws, _ := os.MkdirTemp("", "anthropic-example")
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
	conv := ts.Conversation("chat-1") // one per conversation with Claude
	defer conv.Close()

	tools, err := anthropic.New(ts, conv, anthropic.Options{
		Approve: func(ctx context.Context, q toolset.Question) (toolset.Answer, error) {
			fmt.Println("approve?", q.Command)
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	claude := httptest.NewServer(standIn(
		`{"command":"export TOPIC=shells"}`,
		`{"command":"echo $TOPIC > notes.txt"}`,
		`{"command":"cat notes.txt"}`,
	))
	defer claude.Close()
	client := sdk.NewClient(option.WithBaseURL(claude.URL), option.WithAPIKey("offline"))

	runner := tools.NewToolRunner(&client.Beta.Messages, sdk.BetaToolRunnerParams{
		BetaMessageNewParams: sdk.BetaMessageNewParams{
			Model:     sdk.ModelClaudeSonnet5_5,
			MaxTokens: 1024,
			Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Take a note."))},
		},
	})
	msg, err := runner.RunToCompletion(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(msg.StopReason)
	// Output:
	// claude read: "(no output)"
	// approve? echo $TOPIC > notes.txt
	// claude read: "(no output)"
	// claude read: "[stdout]\nshells\n"
	// end_turn
}

// standIn plays Claude: one bash call per turn with the given inputs, then
// a final answer. It prints each tool result it reads.
func standIn(inputs ...string) http.HandlerFunc {
	turn := 0
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var blocks []struct {
			Type    string `json:"type"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &blocks)
		for _, b := range blocks {
			if b.Type == "tool_result" {
				fmt.Printf("claude read: %q\n", b.Content[0].Text)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		if turn == len(inputs) {
			fmt.Fprint(w, `{"id":"msg_end","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"Noted."}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`)
			return
		}
		fmt.Fprintf(w, `{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_%d","name":"bash","input":%s}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`, turn, turn, inputs[turn])
		turn++
	}
}
