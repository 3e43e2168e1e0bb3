package openai_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// response is a scripted Responses API reply with these output items.
func response(t *testing.T, items ...map[string]any) string {
	t.Helper()
	return toJSON(t, map[string]any{
		"id": "resp_1", "object": "response", "created_at": 1, "model": "scripted", "status": "completed",
		"output": items, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
	})
}

func message(text string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
}

func functionCall(callID, name, args string) map[string]any {
	return map[string]any{"type": "function_call", "id": "fc_" + callID, "call_id": callID, "name": name, "arguments": args, "status": "completed"}
}

// shellCall is a shell_call item; zero limits are sent as null.
func shellCall(callID string, timeoutMs, maxOutput int, commands ...string) map[string]any {
	action := map[string]any{"commands": commands, "timeout_ms": nil, "max_output_length": nil}
	if timeoutMs > 0 {
		action["timeout_ms"] = timeoutMs
	}
	if maxOutput > 0 {
		action["max_output_length"] = maxOutput
	}
	return map[string]any{"type": "shell_call", "id": "sc_" + callID, "call_id": callID, "status": "completed",
		"action": action, "environment": map[string]any{"type": "local"}}
}

func localShellCall(callID string, action map[string]any) map[string]any {
	action["type"] = "exec"
	return map[string]any{"type": "local_shell_call", "id": "lsc_" + callID, "call_id": callID, "status": "completed", "action": action}
}

// runResponses drives the conversation through the Responses API until
// the model's reply has no call the adapter answers.
func runResponses(t *testing.T, ad *shellopenai.Adapter, conv *toolset.Conversation, client openai.Client) {
	t.Helper()
	ctx := testCtx(t)
	params := responses.ResponseNewParams{
		Model: "scripted",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("go")},
		Tools: append(ad.ResponseTools(), shellopenai.ShellTool(), shellopenai.LocalShellTool()),
	}
	for range 20 {
		resp, err := client.Responses.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		inputs, err := ad.ResponseInputs(ctx, conv, resp.Output)
		if err != nil {
			t.Fatal(err)
		}
		if len(inputs) == 0 {
			return
		}
		params.PreviousResponseID = openai.String(resp.ID)
		params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: inputs}
	}
	t.Fatal("the conversation did not end")
}

// inputItems are the input items of a request, by call_id.
func inputItems(t *testing.T, req map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	items, _ := req["input"].([]any)
	for _, it := range items {
		item := it.(map[string]any)
		id, _ := item["call_id"].(string)
		if id == "" { // local_shell_call_output names its call in id
			id, _ = item["id"].(string)
		}
		out[id] = item
	}
	return out
}

// shellOutput is one command's entry of a shell_call_output.
type shellOutput struct {
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	Outcome struct {
		Type     string `json:"type"`
		ExitCode *int   `json:"exit_code"`
	} `json:"outcome"`
}

func shellOutputs(t *testing.T, item map[string]any) []shellOutput {
	t.Helper()
	if item["type"] != "shell_call_output" {
		t.Fatalf("item %v is not a shell_call_output", item)
	}
	var out []shellOutput
	if err := json.Unmarshal([]byte(canonical(t, item["output"])), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func exitOutcome(t *testing.T, o shellOutput, code int) {
	t.Helper()
	if o.Outcome.Type != "exit" || o.Outcome.ExitCode == nil || *o.Outcome.ExitCode != code {
		t.Errorf("outcome %+v (stdout %q stderr %q), want exit %d", o.Outcome, o.Stdout, o.Stderr, code)
	}
}

// TestResponsesShell drives the Responses API's shell tool: commands run
// in the conversation's bash session (state carries across turns), with
// exit and timeout outcomes, max_output_length, and refusals with exit
// code 125 and the policy's reason.
func TestResponsesShell(t *testing.T) {
	ts := newToolset(t, shellcap.Options{Policy: policy.Rules{DenyPatterns: []string{`^touch denied`}}})
	ad := newAdapter(t, shellopenai.Options{Toolset: ts})
	client, m := newClient(t,
		func(map[string]any) string {
			return response(t, shellCall("s1", 0, 0, "mkdir -p sub && cd sub && export V=seven", "echo out; echo err >&2; sh -c 'exit 4'"))
		},
		func(map[string]any) string {
			return response(t,
				shellCall("s2", 0, 0, "echo $V; basename $PWD"),
				shellCall("s3", 300, 0, "sleep 5"),
				shellCall("s4", 0, 20, "seq 1 100"),
				shellCall("s5", 0, 0, "touch denied.txt"))
		},
		func(map[string]any) string { return response(t, message("done")) },
	)
	conv := ts.Conversation("thread")
	defer conv.Close()
	runResponses(t, ad, conv, client)

	reqs := m.requests()
	if len(reqs) != 3 {
		t.Fatalf("want 3 requests, got %d", len(reqs))
	}
	if reqs[1]["previous_response_id"] != "resp_1" {
		t.Errorf("previous_response_id %v", reqs[1]["previous_response_id"])
	}
	got := inputItems(t, reqs[1])
	s1 := shellOutputs(t, got["s1"])
	if len(s1) != 2 {
		t.Fatalf("s1: want 2 outputs, got %+v", s1)
	}
	exitOutcome(t, s1[0], 0)
	exitOutcome(t, s1[1], 4)
	if s1[1].Stdout != "out\n" || s1[1].Stderr != "err\n" {
		t.Errorf("s1[1]: stdout %q stderr %q, want %q and %q", s1[1].Stdout, s1[1].Stderr, "out\n", "err\n")
	}

	got = inputItems(t, reqs[2])
	s2 := shellOutputs(t, got["s2"])
	exitOutcome(t, s2[0], 0)
	if s2[0].Stdout != "seven\nsub\n" {
		t.Errorf("session state did not carry over: stdout %q", s2[0].Stdout)
	}
	s3 := shellOutputs(t, got["s3"])
	if s3[0].Outcome.Type != "timeout" {
		t.Errorf("s3: outcome %+v, want timeout", s3[0].Outcome)
	}
	s4 := shellOutputs(t, got["s4"])
	exitOutcome(t, s4[0], 0)
	if got["s4"]["max_output_length"] != float64(20) {
		t.Errorf("s4: max_output_length %v, want 20", got["s4"]["max_output_length"])
	}
	lines := strings.SplitN(s4[0].Stdout, "\n", 2)
	if lines[0] != "[... 272 characters omitted ...]" || lines[1] != "\n95\n96\n97\n98\n99\n100\n" {
		t.Errorf("s4: stdout %q, want the omission line and the last 20 characters", s4[0].Stdout)
	}
	s5 := shellOutputs(t, got["s5"])
	exitOutcome(t, s5[0], shellopenai.NotRunExitCode)
	if !strings.Contains(s5[0].Stderr, "is denied by the pattern '^touch denied'") {
		t.Errorf("s5: stderr %q lacks the policy's reason", s5[0].Stderr)
	}
}

// TestResponsesLocalShellAndFunctions drives local_shell calls (argv, env,
// working_directory, a refused user) and function tools, and an approval
// through the shell tool.
func TestResponsesLocalShellAndFunctions(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	var mu sync.Mutex
	var streamed strings.Builder
	ad := newAdapter(t, shellopenai.Options{Toolset: ts, Output: func(_ shellcap.Stream, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		streamed.Write(data)
	}})
	client, m := newClient(t,
		func(map[string]any) string {
			return response(t,
				functionCall("f1", toolset.RunCommand, `{"command":"mkdir -p sub/dir && echo made","timeout_seconds":null}`),
			)
		},
		func(map[string]any) string {
			return response(t,
				localShellCall("l1", map[string]any{"command": []string{"bash", "-lc", "echo \"$W\"; basename \"$PWD\"; exit 2"}, "env": map[string]string{"W": "it's x"}, "working_directory": "sub/dir"}),
				localShellCall("l2", map[string]any{"command": []string{"printf", "%s|", "a b", "c'd"}, "env": map[string]string{}}),
				localShellCall("l3", map[string]any{"command": []string{"id"}, "env": map[string]string{}, "user": "nobody"}),
				functionCall("f2", toolset.ListCommands, `{}`),
			)
		},
		func(map[string]any) string { return response(t, message("done")) },
	)
	conv := ts.Conversation("thread")
	defer conv.Close()
	runResponses(t, ad, conv, client)

	reqs := m.requests()
	checkResponseTools(t, ts, reqs[0]["tools"].([]any))
	mu.Lock()
	if streamed.String() != "made\nit's x\ndir\na b|c'd|" {
		t.Errorf("Options.Output got %q, want the output of f1, l1 and l2", streamed.String())
	}
	mu.Unlock()
	got := inputItems(t, reqs[1])
	f1 := got["f1"]
	if f1["type"] != "function_call_output" || f1["output"] != "[stdout]\nmade\n" {
		t.Errorf("f1: %v", f1)
	}
	got = inputItems(t, reqs[2])
	for id, want := range map[string]struct {
		output   string
		exitCode any
	}{
		"l1": {"[stdout]\nit's x\ndir\n\n[exit code: 2]", float64(2)},
		"l2": {"[stdout]\na b|c'd|", float64(0)},
		"l3": {"local_shell: this host cannot run commands as another user (user \"nobody\"); omit user.", nil},
	} {
		item := got[id]
		if item["type"] != "local_shell_call_output" {
			t.Errorf("%s: %v is not a local_shell_call_output", id, item)
			continue
		}
		var out struct {
			Output   string         `json:"output"`
			Metadata map[string]any `json:"metadata"`
		}
		if err := json.Unmarshal([]byte(item["output"].(string)), &out); err != nil {
			t.Fatalf("%s: output is not JSON: %v", id, err)
		}
		if out.Output != want.output || out.Metadata["exit_code"] != want.exitCode {
			t.Errorf("%s: output %q exit code %v, want %q and %v", id, out.Output, out.Metadata["exit_code"], want.output, want.exitCode)
		}
	}
	if f2 := got["f2"]; f2["type"] != "function_call_output" || !strings.Contains(f2["output"].(string), "(no background commands)") {
		t.Errorf("f2: %v", f2)
	}
}

// checkResponseTools checks the tools a Responses request offered: every
// toolset tool as a strict function tool with its strict schema, then the
// shell tool in a local environment and local_shell.
func checkResponseTools(t *testing.T, ts *toolset.Toolset, tools []any) {
	t.Helper()
	n := len(ts.Tools())
	if len(tools) != n+2 {
		t.Fatalf("offered %d tools, want %d", len(tools), n+2)
	}
	for i, tool := range ts.Tools() {
		fn := tools[i].(map[string]any)
		if fn["type"] != "function" || fn["name"] != tool.Name || fn["strict"] != true || fn["description"] != tool.Description {
			t.Errorf("tool %d: %v %v strict %v, want function %s, strict, with its description", i, fn["type"], fn["name"], fn["strict"], tool.Name)
		}
		if g, w := canonical(t, fn["parameters"]), canonical(t, tool.StrictInputSchema()); g != w {
			t.Errorf("%s parameters:\n got %s\nwant %s", tool.Name, g, w)
		}
	}
	if g, w := canonical(t, tools[n]), `{"environment":{"type":"local"},"type":"shell"}`; g != w {
		t.Errorf("shell tool %s, want %s", g, w)
	}
	if g, w := canonical(t, tools[n+1]), `{"type":"local_shell"}`; g != w {
		t.Errorf("local_shell tool %s, want %s", g, w)
	}
}
