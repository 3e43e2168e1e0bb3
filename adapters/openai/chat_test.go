package openai_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/toolset"
)

// chatCall is a scripted chat completion whose assistant message calls
// tools: pairs of name and arguments.
func chatCall(t *testing.T, calls ...string) string {
	t.Helper()
	var tcs []map[string]any
	for i := 0; i+1 < len(calls); i += 2 {
		tcs = append(tcs, map[string]any{
			"id": fmt.Sprintf("call_%d", i/2), "type": "function",
			"function": map[string]any{"name": calls[i], "arguments": calls[i+1]},
		})
	}
	return toJSON(t, map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "scripted",
		"choices": []map[string]any{{
			"index": 0, "finish_reason": "tool_calls",
			"message": map[string]any{"role": "assistant", "content": nil, "tool_calls": tcs},
		}},
	})
}

// chatDone is a scripted final answer.
func chatDone(t *testing.T) string {
	return toJSON(t, map[string]any{
		"id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "scripted",
		"choices": []map[string]any{{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "done"}}},
	})
}

// toolReplies are the tool messages of a chat request, by tool_call_id.
func toolReplies(req map[string]any) map[string]string {
	out := map[string]string{}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg := m.(map[string]any)
		if msg["role"] == "tool" {
			out[msg["tool_call_id"].(string)] = msg["content"].(string)
		}
	}
	return out
}

// lastToolReplies are the tool messages after the last assistant message.
func lastToolReplies(req map[string]any) []string {
	var out []string
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg := m.(map[string]any)
		switch msg["role"] {
		case "assistant":
			out = nil
		case "tool":
			out = append(out, msg["content"].(string))
		}
	}
	return out
}

// runChat drives the conversation: request, run the tool calls through
// the adapter, send their results, until the model answers without tools.
func runChat(t *testing.T, ad *shellopenai.Adapter, conv *toolset.Conversation, client openai.Client) {
	t.Helper()
	ctx := testCtx(t)
	params := openai.ChatCompletionNewParams{
		Model:    "scripted",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")},
		Tools:    ad.ChatTools(),
	}
	for range 20 {
		reply, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		msg := reply.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return
		}
		outs, err := ad.ChatToolMessages(ctx, conv, msg)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, msg.ToParam())
		params.Messages = append(params.Messages, outs...)
	}
	t.Fatal("the conversation did not end")
}

var jobID = regexp.MustCompile(`(?m)^ID: (\S+)$`)

// TestChatCompletions drives the Chat Completions API through tool-call
// turns: output and exit code, bash state across turns, a job started in
// one turn and checked and stopped in later ones.
func TestChatCompletions(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	ad := newAdapter(t, shellopenai.Options{Toolset: ts})
	var id string
	client, m := newClient(t,
		func(map[string]any) string {
			return chatCall(t,
				toolset.RunCommand, `{"command":"echo out; echo err >&2; exit 3","timeout_seconds":null}`,
				toolset.BashTool, `{"command":"mkdir -p sub && cd sub && export GREETING=hello","restart":null,"session_id":null,"timeout_seconds":null}`)
		},
		func(map[string]any) string {
			return chatCall(t,
				toolset.BashTool, `{"command":"echo $GREETING; basename $PWD","restart":null,"session_id":null,"timeout_seconds":null}`,
				toolset.StartCommand, `{"command":"echo started; touch job-ready; sleep 60","stdin":null}`)
		},
		func(req map[string]any) string {
			replies := lastToolReplies(req)
			if len(replies) != 2 {
				t.Errorf("turn 3: want 2 tool replies, got %q", replies)
				return chatDone(t)
			}
			id = findJobID(t, replies[1])
			return chatCall(t,
				toolset.RunCommand, `{"command":"until [ -e job-ready ]; do sleep 0.01; done","timeout_seconds":null}`,
				toolset.CheckCommand, fmt.Sprintf(`{"command_id":%q,"new_only":null}`, id))
		},
		func(map[string]any) string {
			return chatCall(t, toolset.StopCommand, fmt.Sprintf(`{"command_id":%q}`, id))
		},
		func(map[string]any) string { return chatDone(t) },
	)
	conv := ts.Conversation("thread-1")
	defer conv.Close()
	runChat(t, ad, conv, client)

	reqs := m.requests()
	if len(reqs) != 5 {
		t.Fatalf("want 5 requests, got %d", len(reqs))
	}
	got := toolReplies(reqs[1])
	for _, want := range []string{"[stdout]\nout", "[stderr]\nerr", "[exit code: 3]"} {
		if !strings.Contains(got["call_0"], want) {
			t.Errorf("run_command reply %q lacks %q", got["call_0"], want)
		}
	}
	got = toolReplies(reqs[2])
	if want := "[stdout]\nhello\nsub"; !strings.Contains(got["call_0"], want) {
		t.Errorf("bash state did not carry over: reply %q lacks %q", got["call_0"], want)
	}
	got = lastToolRepliesMap(reqs[3])
	if r := got["call_1"]; !strings.Contains(r, "[status: running]") {
		t.Errorf("check_command reply %q lacks [status: running]", r)
	}
	got = lastToolRepliesMap(reqs[4])
	if r := got["call_0"]; !strings.Contains(r, "started") || !strings.Contains(r, "[exit code: 143]") {
		t.Errorf("stop_command reply %q: want the job's output and [exit code: 143]", r)
	}
}

// lastToolRepliesMap is lastToolReplies by tool_call_id.
func lastToolRepliesMap(req map[string]any) map[string]string {
	out := map[string]string{}
	msgs, _ := req["messages"].([]any)
	for _, m := range msgs {
		msg := m.(map[string]any)
		switch msg["role"] {
		case "assistant":
			out = map[string]string{}
		case "tool":
			out[msg["tool_call_id"].(string)] = msg["content"].(string)
		}
	}
	return out
}

// findJobID reads the job ID out of start_command's reply; "" when there
// is none (reported as an error).
func findJobID(t *testing.T, reply string) string {
	t.Helper()
	m := jobID.FindStringSubmatch(reply)
	if m == nil {
		t.Errorf("no job ID in %q", reply)
		return ""
	}
	return m[1]
}

// TestChatToolsStrict checks the tools the model is offered: every
// toolset tool, in strict mode with its strict schema, unless NonStrict.
func TestChatToolsStrict(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	for _, nonStrict := range []bool{false, true} {
		t.Run(fmt.Sprint("NonStrict=", nonStrict), func(t *testing.T) {
			ad := newAdapter(t, shellopenai.Options{Toolset: ts, NonStrict: nonStrict})
			client, m := newClient(t, func(map[string]any) string { return chatDone(t) })
			conv := ts.Conversation(t.Name())
			defer conv.Close()
			runChat(t, ad, conv, client)
			tools := m.requests()[0]["tools"].([]any)
			if len(tools) != len(ts.Tools()) {
				t.Fatalf("offered %d tools, want %d", len(tools), len(ts.Tools()))
			}
			for i, raw := range tools {
				tool := ts.Tools()[i]
				fn := raw.(map[string]any)["function"].(map[string]any)
				want := tool.StrictInputSchema()
				if nonStrict {
					want = tool.InputSchema
				}
				if fn["name"] != tool.Name || fn["description"] != tool.Description || fn["strict"] != !nonStrict {
					t.Errorf("tool %d: name %v strict %v, want %s strict %v and its description", i, fn["name"], fn["strict"], tool.Name, !nonStrict)
				}
				if g, w := canonical(t, fn["parameters"]), canonical(t, want); g != w {
					t.Errorf("%s parameters:\n got %s\nwant %s", tool.Name, g, w)
				}
			}
		})
	}
}

// canonical is v as JSON with sorted keys.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(x)
	return string(b)
}
