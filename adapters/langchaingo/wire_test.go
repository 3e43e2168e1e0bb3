package langchaingo_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/policy"
	"github.com/tmc/langchaingo/llms/openai"
)

// chatRequest is the part of a Chat Completions request the test reads.
type chatRequest struct {
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// toolReplies are the tool messages of req after its last assistant
// message, by tool call ID.
func (req *chatRequest) toolReplies() map[string]string {
	out := map[string]string{}
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == "tool"; i-- {
		s, _ := req.Messages[i].Content.(string)
		out[req.Messages[i].ToolCallID] = s
	}
	return out
}

// TestOpenAIWire: through LangChainGo's OpenAI client and an httptest
// server speaking Chat Completions, the provider receives the tools with
// their hand-written schemas, and after each round of tool calls one tool
// message per call ID with what the tool said; the bash session carries
// over to the next user turn.
func TestOpenAIWire(t *testing.T) {
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{})
	schemas := map[string]string{}
	for _, tl := range a.Toolset().Tools() {
		b, _ := json.Marshal(tl.InputSchema)
		schemas[tl.Name] = string(b)
	}
	toolCall := func(id, name, args string) map[string]any {
		return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	}
	reply := func(content string, calls ...map[string]any) map[string]any {
		msg := map[string]any{"role": "assistant", "content": content}
		finish := "stop"
		if len(calls) > 0 {
			msg["tool_calls"], finish = calls, "tool_calls"
		}
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
	}
	want := func(req *chatRequest, id string, texts ...string) {
		got, ok := req.toolReplies()[id]
		if !ok {
			t.Errorf("no tool message for %s: %+v", id, req.Messages)
		}
		for _, w := range texts {
			if !strings.Contains(got, w) {
				t.Errorf("tool message %s is %q, want %q in it", id, got, w)
			}
		}
	}
	steps := []func(req *chatRequest) map[string]any{
		func(req *chatRequest) map[string]any {
			if len(req.Tools) != len(schemas) {
				t.Errorf("%d tools sent", len(req.Tools))
			}
			for _, tl := range req.Tools {
				var got, want any
				json.Unmarshal(tl.Function.Parameters, &got)
				json.Unmarshal([]byte(schemas[tl.Function.Name]), &want)
				if tl.Type != "function" || !jsonEqual(got, want) {
					t.Errorf("%s sent with parameters %s, want %s", tl.Function.Name, tl.Function.Parameters, schemas[tl.Function.Name])
				}
			}
			return reply("", toolCall("call_1", "bash", `{"command":"cd /tmp && export X=wire"}`),
				toolCall("call_2", "run_command", `{"command":"echo out; exit 4"}`))
		},
		func(req *chatRequest) map[string]any {
			want(req, "call_1", "(no output)")
			want(req, "call_2", "[stdout]\nout\n", "[exit code: 4]")
			return reply("Done.")
		},
		func(req *chatRequest) map[string]any {
			return reply("", toolCall("call_3", "bash", `{"command":"echo \"$PWD $X\""}`))
		},
		func(req *chatRequest) map[string]any {
			want(req, "call_3", "/tmp wire")
			return reply("Still there.")
		},
	}
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		var req chatRequest
		if r.URL.Path != "/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || n >= len(steps) {
			http.Error(w, "unexpected request", http.StatusBadRequest)
			return
		}
		n++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(steps[n-1](&req))
	}))
	defer srv.Close()

	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("scripted"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, final := converse(t, a, llm, nil, "Set X.")
	if final != "Done." {
		t.Errorf("turn 1 ended with %q", final)
	}
	if _, final = converse(t, a, llm, msgs, "Is X set?"); final != "Still there." {
		t.Errorf("turn 2 ended with %q", final)
	}
	if n != len(steps) {
		t.Errorf("%d of %d requests made", n, len(steps))
	}
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
