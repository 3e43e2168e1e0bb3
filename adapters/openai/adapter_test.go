package openai_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/toolset"
)

func TestNewNeedsToolset(t *testing.T) {
	if _, err := shellopenai.New(shellopenai.Options{}); !errors.Is(err, shellopenai.ErrNoToolset) {
		t.Fatalf("New without Toolset: %v, want ErrNoToolset", err)
	}
}

// TestOtherToolsLeftToHost checks that calls of tools that are not
// shellcap's get no reply from the adapter, in both APIs, and that the
// shellcap calls beside them do.
func TestOtherToolsLeftToHost(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	ad := newAdapter(t, shellopenai.Options{Toolset: ts})
	conv := ts.Conversation("thread")
	defer conv.Close()
	ctx := testCtx(t)

	var msg openai.ChatCompletionMessage
	if err := json.Unmarshal([]byte(`{"role":"assistant","tool_calls":[
		{"id":"w","type":"function","function":{"name":"get_weather","arguments":"{}"}},
		{"id":"r","type":"function","function":{"name":"run_command","arguments":"{\"command\":\"echo hi\"}"}}]}`), &msg); err != nil {
		t.Fatal(err)
	}
	outs, err := ad.ChatToolMessages(ctx, conv, msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 || outs[0].OfTool.ToolCallID != "r" || outs[0].OfTool.Content.OfString.Value != "[stdout]\nhi\n" {
		t.Errorf("chat: got %+v, want only call r answered with its output", outs)
	}

	var resp responses.Response
	if err := json.Unmarshal([]byte(`{"id":"resp","output":[
		{"type":"function_call","call_id":"w","name":"get_weather","arguments":"{}"},
		{"type":"web_search_call","id":"ws","status":"completed"},
		{"type":"function_call","call_id":"r","name":"run_command","arguments":"{\"command\":\"echo hi\"}"}]}`), &resp); err != nil {
		t.Fatal(err)
	}
	inputs, err := ad.ResponseInputs(ctx, conv, resp.Output)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 1 || inputs[0].OfFunctionCallOutput == nil || inputs[0].OfFunctionCallOutput.CallID.Value != "r" {
		t.Errorf("responses: got %+v, want only call r answered", inputs)
	}
	if !ad.Owns(toolset.BashTool) || ad.Owns("get_weather") {
		t.Error("Owns: want bash owned and get_weather not")
	}
}
