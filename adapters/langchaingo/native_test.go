package langchaingo_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
)

// call is a tool call of the model and what its response must contain.
type call struct {
	id, tool, args string
	want           []string
}

// toolCalls is the model's reply asking for calls.
func toolCalls(calls []call) *llms.ContentChoice {
	choice := &llms.ContentChoice{}
	for _, c := range calls {
		choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: c.id, Type: "function", FunctionCall: &llms.FunctionCall{Name: c.tool, Arguments: c.args}})
	}
	return choice
}

// responses are the tool responses the model was sent after its last
// reply, by tool call ID.
func responses(msgs []llms.MessageContent) map[string]llms.ToolCallResponse {
	out := map[string]llms.ToolCallResponse{}
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == llms.ChatMessageTypeTool; i-- {
		for _, p := range msgs[i].Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out[r.ToolCallID] = r
			}
		}
	}
	return out
}

// checkResponses checks that the model read, for each of calls, a
// response naming the call and its tool, with the texts it wants.
func checkResponses(t *testing.T, msgs []llms.MessageContent, calls []call) {
	t.Helper()
	got := responses(msgs)
	if len(got) != len(calls) {
		t.Errorf("the model read %d tool responses for %d calls: %+v", len(got), len(calls), got)
	}
	for _, c := range calls {
		r, ok := got[c.id]
		if !ok {
			t.Errorf("no response to %s %s", c.tool, c.args)
			continue
		}
		if r.Name != c.tool {
			t.Errorf("response to %s names %q", c.id, r.Name)
		}
		for _, w := range c.want {
			if !strings.Contains(r.Content, w) {
				t.Errorf("%s %s: the model read %q, want %q in it", c.tool, c.args, r.Content, w)
			}
		}
	}
}

// converse runs one user turn of native tool calling: it asks the model
// with the adapter's definitions and answers its tool calls until it
// replies without any, and returns the conversation and the final text.
func converse(t *testing.T, a *langchaingo.Adapter, model llms.Model, msgs []llms.MessageContent, user string) ([]llms.MessageContent, string) {
	t.Helper()
	ctx := testCtx(t)
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, user))
	for range 10 {
		resp, err := model.GenerateContent(ctx, msgs, llms.WithTools(a.Definitions()))
		if err != nil {
			t.Fatal(err)
		}
		choice := resp.Choices[0]
		if len(choice.ToolCalls) == 0 {
			return append(msgs, llms.TextParts(llms.ChatMessageTypeAI, choice.Content)), choice.Content
		}
		more, err := a.Respond(ctx, choice)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, more...)
	}
	t.Fatal("the model never stopped calling tools")
	return nil, ""
}

// TestNativeToolCalling: a model calling tools natively gets the tools'
// definitions (name, description, hand-written schema) and, over three
// user turns, one response per call with the output, the exit code, the
// denial, the precise texts about an unknown tool and bad arguments; the
// bash session keeps its state and a job started in the first turn is
// checked in the second and stopped in the third.
func TestNativeToolCalling(t *testing.T) {
	a, ws := setup(t, policy.Rules{}, langchaingo.Options{})
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	turn1 := []call{
		{"c1", "bash", `{"command":"cd sub && export PORT=8642"}`, []string{"(no output)"}},
		{"c2", "start_command", `{"command":"echo listening; sleep 120"}`, []string{"Started background command", "ID: "}},
		{"c3", "run_command", `{"command":"echo hi; echo oops >&2; exit 3"}`, []string{"[stdout]\nhi\n", "[stderr]\noops\n", "[exit code: 3]"}},
		{"c4", "run_command", `{"command":"rm -rf important"}`, []string{"Command 'rm' is denied."}},
		{"c5", "no_such_tool", `{}`, []string{`Unknown tool "no_such_tool". Call one of: run_command, start_command,`}},
		{"c6", "run_command", `{"cmd":"ls"}`, []string{`Invalid arguments for run_command: unknown argument "cmd".`}},
	}
	var job string
	turn2 := func() []call {
		return []call{
			{"d1", "bash", `{"command":"echo \"$PWD $PORT\""}`, []string{filepath.Join(ws, "sub") + " 8642"}},
			{"d2", "check_command", `{"command_id":"` + job + `"}`, []string{"listening", "running"}},
		}
	}
	turn3 := func() []call {
		return []call{{"e1", "stop_command", `{"command_id":"` + job + `"}`, []string{"stopped"}}}
	}
	var checked [][]call // the calls each step checks the responses to
	step := func(next func() []call) func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice {
		return func(msgs []llms.MessageContent, o llms.CallOptions) *llms.ContentChoice {
			if !reflect.DeepEqual(o.Tools, a.Definitions()) {
				t.Errorf("the model was offered %+v", o.Tools)
			}
			if calls := next(); calls != nil {
				checked = append(checked, calls)
				return toolCalls(calls)
			}
			// After the calls: read the responses, answer in text.
			last := checked[len(checked)-1]
			checkResponses(t, msgs, last)
			if r, ok := responses(msgs)["c2"]; ok {
				job = jobID(r.Content)
			}
			return &llms.ContentChoice{Content: "ok"}
		}
	}
	fixed := func(c []call) func() []call { return func() []call { return c } }
	none := func() []call { return nil }
	model := &scripted{steps: []func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice{
		step(fixed(turn1)), step(none),
		step(turn2), step(none),
		step(turn3), step(none),
	}}
	var msgs []llms.MessageContent
	for i, user := range []string{"Set up the server.", "Is it up?", "Stop it."} {
		msgs, _ = converse(t, a, model, msgs, user)
		if i == 0 {
			waitOutput(t, a, job, "listening")
		}
	}
	if err := model.done(); err != nil {
		t.Fatal(err)
	}
	if job == "none-seen" || job == "" {
		t.Fatal("no job ID in start_command's response")
	}

	// The conversation the model read: each assistant message carries its
	// tool calls, each tool message one response.
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeTool:
			if len(m.Parts) != 1 {
				t.Errorf("a tool message with %d parts", len(m.Parts))
			}
		case llms.ChatMessageTypeAI:
			for _, p := range m.Parts {
				if tc, ok := p.(llms.ToolCall); ok && tc.FunctionCall == nil {
					t.Errorf("tool call %s lost its function", tc.ID)
				}
			}
		}
	}
}

// TestDefinitions: each tool is offered with the toolset's name,
// description and hand-written input schema, or its strict variant with
// Strict set, and arguments valid against the strict schema (null for
// absent optionals) are accepted.
func TestDefinitions(t *testing.T) {
	for _, strict := range []bool{false, true} {
		a, _ := setup(t, policy.Rules{}, langchaingo.Options{Strict: strict})
		defs := a.Definitions()
		if len(defs) != len(toolset.AllTools) {
			t.Fatalf("%d definitions for %d tools", len(defs), len(toolset.AllTools))
		}
		ts := toolsetOf(t, a)
		for i, d := range defs {
			tl := ts.Tools()[i]
			want := tl.InputSchema
			if strict {
				want = tl.StrictInputSchema()
			}
			if d.Type != "function" || d.Function.Name != tl.Name || d.Function.Description != tl.Description || d.Function.Strict != strict || !reflect.DeepEqual(d.Function.Parameters, want) {
				t.Errorf("strict %v: definition %+v", strict, d.Function)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("%s: %v", tl.Name, err)
			}
		}
	}

	a, _ := setup(t, policy.Rules{}, langchaingo.Options{Strict: true})
	var run map[string]any
	for _, d := range a.Definitions() {
		if d.Function.Name == toolset.RunCommand {
			run = d.Function.Parameters.(map[string]any)
		}
	}
	args := map[string]any{}
	for name := range run["properties"].(map[string]any) {
		args[name] = nil
	}
	args["command"] = "echo strict"
	b, _ := json.Marshal(args)
	resp, err := a.Call(testCtx(t), llms.ToolCall{ID: "s1", Type: "function", FunctionCall: &llms.FunctionCall{Name: toolset.RunCommand, Arguments: string(b)}})
	if err != nil || resp.Content != "[stdout]\nstrict\n" || resp.ToolCallID != "s1" {
		t.Errorf("strict arguments %s: %+v, %v", b, resp, err)
	}
}

// toolsetOf is the toolset behind a (the test's setup).
func toolsetOf(t *testing.T, a *langchaingo.Adapter) *toolset.Toolset {
	t.Helper()
	return a.Toolset()
}

// TestNativeApproval: an approval round trip in native tool calling:
// approved the command runs, declined the model reads the user's reason,
// a failing approver or none refuses it with the policy's reason.
func TestNativeApproval(t *testing.T) {
	for _, tc := range approvalCases() {
		t.Run(tc.name, func(t *testing.T) {
			var asked []toolset.Question
			opts := tc.options(&asked)
			a, ws := setup(t, approvalRules, opts)
			calls := []call{{"a1", "bash", `{"command":"touch made.txt"}`, tc.want}}
			model := &scripted{steps: []func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice{
				func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice { return toolCalls(calls) },
				func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
					checkResponses(t, msgs, calls)
					return &llms.ContentChoice{Content: "ok"}
				},
			}}
			converse(t, a, model, nil, "Make a file.")
			if err := model.done(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(ws, "made.txt")); (err == nil) != tc.runs {
				t.Errorf("ran: %v, want %v", err == nil, tc.runs)
			}
			tc.checkAsked(t, asked, "bash")
		})
	}
}

// TestOpenAIFunctionsAgent: LangChainGo's own native tool-calling agent,
// run by agents.Executor, passes the tools' JSON input through its __arg1
// parameter; the model reads each response by its tool call ID.
func TestOpenAIFunctionsAgent(t *testing.T) {
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{})
	arg := func(input string) string {
		b, _ := json.Marshal(map[string]string{"__arg1": input})
		return string(b)
	}
	calls := []call{
		{"f1", "bash", arg(`{"command":"cd /tmp && V=seven"}`), nil},
		{"f2", "run_command", arg(`{"command":"echo native; exit 2"}`), []string{"[stdout]\nnative\n", "[exit code: 2]"}},
	}
	second := []call{{"f3", "bash", arg(`{"command":"echo \"$PWD $V\""}`), []string{"/tmp seven"}}}
	want := func(msgs []llms.MessageContent, calls []call) {
		got := map[string]string{}
		for _, m := range msgs {
			for _, p := range m.Parts {
				if r, ok := p.(llms.ToolCallResponse); ok {
					got[r.ToolCallID] = r.Content
				}
			}
		}
		for _, c := range calls {
			for _, w := range c.want {
				if !strings.Contains(got[c.id], w) {
					t.Errorf("%s: the model read %q, want %q in it", c.args, got[c.id], w)
				}
			}
		}
	}
	model := &scripted{steps: []func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice{
		func(_ []llms.MessageContent, o llms.CallOptions) *llms.ContentChoice {
			if len(o.Functions) != len(toolset.AllTools) {
				t.Errorf("the agent offered %d functions", len(o.Functions))
			}
			return toolCalls(calls)
		},
		func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			want(msgs, calls)
			return toolCalls(second)
		},
		func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
			want(msgs, second)
			return &llms.ContentChoice{Content: "all done"}
		},
	}}
	exec := agents.NewExecutor(agents.NewOpenAIFunctionsAgent(model, a.Tools()))
	out, err := chains.Run(testCtx(t), exec, "Use the shell.")
	if err != nil || out != "all done" {
		t.Fatalf("executor: %q, %v", out, err)
	}
	if err := model.done(); err != nil {
		t.Fatal(err)
	}
}
