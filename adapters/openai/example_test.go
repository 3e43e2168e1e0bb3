package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/toolset"
)

// A Chat Completions loop: offer the tools, run the model's tool calls in
// the thread's conversation, send the results back.
func ExampleAdapter_ChatToolMessages() {
	url, stop := fakeOpenAI( // a scripted model, so the example runs offline
		`{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"cd /tmp && echo $PWD\"}"}}]}}]}`,
		`{"choices":[{"message":{"role":"assistant","content":"You are in /tmp."}}]}`,
	)
	defer stop()
	ws, _ := os.MkdirTemp("", "openai-example")
	defer os.RemoveAll(ws)

	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, Approve: toolset.Approve})
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	ad, _ := shellopenai.New(shellopenai.Options{Toolset: ts})
	conv := ts.Conversation("thread-1")
	defer conv.Close()

	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("key"))
	params := openai.ChatCompletionNewParams{
		Model:    openai.ChatModelGPT5,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where is /tmp?")},
		Tools:    ad.ChatTools(),
	}
	for {
		reply, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		msg := reply.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			fmt.Println(msg.Content)
			return
		}
		outs, _ := ad.ChatToolMessages(ctx, conv, msg)
		for _, o := range outs {
			fmt.Printf("%s -> %q\n", o.OfTool.ToolCallID, o.OfTool.Content.OfString.Value)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, outs...)
	}
	// Output:
	// call_1 -> "[stdout]\n/tmp\n"
	// You are in /tmp.
}

// The Responses API's shell tool, run on the Shell: each command's output
// and exit outcome go back in a shell_call_output.
func ExampleShellTool() {
	url, stop := fakeOpenAI(
		`{"id":"resp_1","output":[{"type":"shell_call","call_id":"call_1","action":{"commands":["echo hi","ls missing"],"timeout_ms":5000,"max_output_length":1000}}]}`,
		`{"id":"resp_2","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}]}`,
	)
	defer stop()
	ws, _ := os.MkdirTemp("", "openai-example")
	defer os.RemoveAll(ws)

	sh, _ := shellcap.New(shellcap.Options{Workspace: ws, Approve: toolset.Approve})
	defer sh.Close()
	ts, _ := toolset.New(toolset.Options{Shell: sh})
	defer ts.Close()
	ad, _ := shellopenai.New(shellopenai.Options{Toolset: ts})
	conv := ts.Conversation("thread-1")
	defer conv.Close()

	ctx := context.Background()
	client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("key"))
	params := responses.ResponseNewParams{
		Model: openai.ChatModelGPT5,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hi.")},
		Tools: []responses.ToolUnionParam{shellopenai.ShellTool()},
	}
	for {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			fmt.Println(err)
			return
		}
		inputs, _ := ad.ResponseInputs(ctx, conv, resp.Output)
		if len(inputs) == 0 {
			fmt.Println(resp.OutputText())
			return
		}
		for _, c := range inputs[0].OfShellCallOutput.Output {
			fmt.Printf("exit %d stdout %q stderr %q\n", *c.Outcome.GetExitCode(), c.Stdout, strings.TrimPrefix(c.Stderr, "ls: "))
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: inputs}
	}
	// Output:
	// exit 0 stdout "hi\n" stderr ""
	// exit 2 stdout "" stderr "cannot access 'missing': No such file or directory\n"
	// done
}

// fakeOpenAI serves replies, one per request, as the OpenAI API would.
func fakeOpenAI(replies ...string) (url string, stop func()) {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if len(replies) == 0 {
			http.Error(w, `{"error":{"message":"no more replies"}}`, http.StatusInternalServerError)
			return
		}
		io.WriteString(w, replies[0])
		replies = replies[1:]
	}))
	return srv.URL + "/v1/", srv.Close
}
