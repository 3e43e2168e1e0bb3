package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/anthropic"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// run pushes the scripted turns through the SDK's tool runner with the
// tools of one conversation and returns the model, which holds what it
// received.
func run(t *testing.T, ts *toolset.Toolset, conv string, opts anthropic.Options, turns ...turn) *model {
	t.Helper()
	m := newModel(t, append(turns, final)...)
	c := ts.Conversation(conv)
	t.Cleanup(func() { c.Close() })
	tools, err := anthropic.New(ts, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	client := m.client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	msg, err := tools.NewToolRunner(&client.Beta.Messages, params()).RunToCompletion(ctx)
	if err != nil {
		t.Fatalf("RunToCompletion: %v", err)
	}
	if msg == nil || msg.StopReason != "end_turn" {
		t.Fatalf("final message %+v, want end_turn", msg)
	}
	if len(m.results) != len(turns)+1 {
		t.Fatalf("%d requests, want %d", len(m.results), len(turns)+1)
	}
	return m
}

// The bash tool is one persistent session per conversation: state carries
// from turn to turn; output, exit codes and restarts reach the model.
func TestBashSession(t *testing.T) {
	ts, ws := newToolset(t, shellcap.Options{})
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := run(t, ts, "chat-1", anthropic.Options{},
		calls(use{"bash", `{"command":"cd sub && export GREETING=hello"}`}),
		calls(use{"bash", `{"command":"echo $GREETING from $(basename $PWD)"}`}),
		calls(use{"bash", `{"command":"echo oops >&2; (exit 3)"}`}),
		calls(use{"bash", `{"restart":true}`}),
		calls(use{"bash", `{"command":"echo ${GREETING:-unset}"}`}),
		calls(use{"bash", `{}`}),
	)
	tests := []struct {
		turn    int
		isError bool
		want    []string
	}{
		{1, false, []string{"(no output)"}},
		{2, false, []string{"[stdout]\nhello from sub"}},
		{3, false, []string{"[stderr]\noops", "[exit code: 3]"}},
		{4, false, []string{"The bash session was restarted."}},
		{5, false, []string{"[stdout]\nunset"}},
		{6, true, []string{`Error: Provide "command", or "restart": true.`}},
	}
	for _, tt := range tests {
		got := only(t, m.results[tt.turn])
		if got.IsError != tt.isError {
			t.Errorf("turn %d: is_error %v, want %v: %q", tt.turn, got.IsError, tt.isError, got.text())
		}
		for _, w := range tt.want {
			if !strings.Contains(got.text(), w) {
				t.Errorf("turn %d: the model read %q, want %q in it", tt.turn, got.text(), w)
			}
		}
	}
}

// Each conversation has its own bash session.
func TestBashSessionPerConversation(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	run(t, ts, "chat-1", anthropic.Options{}, calls(use{"bash", `{"command":"export WHO=first"}`}))
	m := run(t, ts, "chat-2", anthropic.Options{}, calls(use{"bash", `{"command":"echo ${WHO:-nobody}"}`}))
	if got := only(t, m.results[1]).text(); !strings.Contains(got, "nobody") {
		t.Errorf("a new conversation read %q, want a fresh shell (nobody)", got)
	}
}

// The policy's denials reach the model as is_error results, and the command
// does not run; a bad argument gets the toolset's one text.
func TestDeniedAndInvalid(t *testing.T) {
	ts, ws := newToolset(t, shellcap.Options{})
	keep := filepath.Join(ws, "keep.txt")
	if err := os.WriteFile(keep, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := run(t, ts, "chat-1", anthropic.Options{},
		calls(use{"bash", `{"command":"rm keep.txt"}`}, use{"run_command", `{"command":"rm keep.txt"}`}),
		calls(use{"run_command", `{"cmd":"ls"}`}),
		calls(use{"no_such_tool", `{}`}),
	)
	for i, got := range m.results[1] {
		t.Logf("denied call %d: %q", i, got.text())
		if !got.IsError || !strings.Contains(got.text(), "rm") || !strings.Contains(got.text(), "denied") {
			t.Errorf("denied call %d: is_error %v, the model read %q", i, got.IsError, got.text())
		}
	}
	if len(m.results[1]) != 2 {
		t.Errorf("got %d results for two parallel calls", len(m.results[1]))
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a denied rm ran: %v", err)
	}
	if got := only(t, m.results[2]); !got.IsError || got.text() != `Error: Invalid arguments for run_command: unknown argument "cmd".` {
		t.Errorf("bad argument: is_error %v, %q", got.IsError, got.text())
	}
	if got := only(t, m.results[3]); !got.IsError || !strings.Contains(got.text(), "no_such_tool") {
		t.Errorf("unknown tool: is_error %v, %q", got.IsError, got.text())
	}
}

// A command the policy asks about is put to Options.Approve while the call
// runs; declined, or with no approver, it is refused and does not run.
func TestApproval(t *testing.T) {
	tests := []struct {
		name    string
		approve func(context.Context, toolset.Question) (toolset.Answer, error)
		ran     bool
		want    string
	}{
		{"approved", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		}, true, "(no output)"},
		{"declined", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Reason: "not in this repository"}, nil
		}, false, "not in this repository"},
		{"approver fails", func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, errors.New("the user went away")
		}, false, "Command 'touch' is not on the list of read-only commands"},
		{"no approver", nil, false, "Command 'touch' is not on the list of read-only commands"},
	}
	for _, tt := range tests {
		for _, tool := range []string{"bash", "run_command"} {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				ts, ws := newToolset(t, shellcap.Options{Policy: policy.Rules{Approval: true}})
				var asked []toolset.Question
				approve := tt.approve
				if approve != nil {
					approve = func(ctx context.Context, q toolset.Question) (toolset.Answer, error) {
						asked = append(asked, q)
						return tt.approve(ctx, q)
					}
				}
				m := run(t, ts, "chat-1", anthropic.Options{Approve: approve},
					calls(use{tool, `{"command":"touch notes.txt"}`}))
				got := only(t, m.results[1])
				t.Logf("the model read %q", got.text())
				_, err := os.Stat(filepath.Join(ws, "notes.txt"))
				if ran := err == nil; ran != tt.ran {
					t.Errorf("ran %v, want %v", ran, tt.ran)
				}
				if got.IsError == tt.ran || !strings.Contains(got.text(), tt.want) {
					t.Errorf("is_error %v, the model read %q, want %q in it", got.IsError, got.text(), tt.want)
				}
				if tt.approve != nil && (len(asked) != 1 || asked[0].Command != "touch notes.txt" || asked[0].Tool != tool) {
					t.Errorf("asked %+v, want one question about touch notes.txt from %s", asked, tool)
				}
			})
		}
	}
}

var jobID = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

// A job started in one turn is checked, listed and stopped in later turns,
// by the ID the model read.
func TestJobAcrossTurns(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	var id string
	withID := func(name, args string) turn {
		return func(t *testing.T, results []received) []use {
			if id == "" {
				for _, r := range results {
					id = jobID.FindString(r.text())
				}
				if id == "" {
					t.Errorf("no job ID in %+v", results)
				}
			}
			return []use{{name, strings.ReplaceAll(args, "ID", id)}}
		}
	}
	m := run(t, ts, "chat-1", anthropic.Options{},
		calls(use{"start_command", `{"command":"echo ready; exec sleep 600"}`}),
		withID("wait_command", `{"command_id":"ID","timeout_seconds":0.2}`),
		withID("list_commands", `{}`),
		withID("stop_command", `{"command_id":"ID"}`),
		withID("check_command", `{"command_id":"ID"}`),
	)
	tests := []struct {
		turn    int
		isError bool
		want    []string
	}{
		{1, false, []string{id}},
		{2, false, []string{"ready", "[status: running]"}},
		{3, false, []string{id, "sleep 600"}},
		{4, false, []string{"[exit code: 143]"}},
		{5, true, []string{id}},
	}
	for _, tt := range tests {
		got := only(t, m.results[tt.turn])
		t.Logf("turn %d: %q", tt.turn, got.text())
		if got.IsError != tt.isError {
			t.Errorf("turn %d: is_error %v, want %v: %q", tt.turn, got.IsError, tt.isError, got.text())
		}
		for _, w := range tt.want {
			if !strings.Contains(got.text(), w) {
				t.Errorf("turn %d: the model read %q, want %q in it", tt.turn, got.text(), w)
			}
		}
	}
}

// The request declares bash as Anthropic's bash_20250124 tool and every
// other tool as a custom tool with the toolset's description and schema,
// unchanged.
func TestDefinitions(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	m := run(t, ts, "chat-1", anthropic.Options{})
	checkDefinitions(t, ts, m.requests[0].Tools)
}

// checkDefinitions checks the tools a request declared against the toolset.
func checkDefinitions(t *testing.T, ts *toolset.Toolset, declared []map[string]any) {
	t.Helper()
	sent := map[string]map[string]any{}
	for _, def := range declared {
		name, _ := def["name"].(string)
		if _, dup := sent[name]; dup {
			t.Errorf("tool %s declared twice", name)
		}
		sent[name] = def
	}
	if len(sent) != len(ts.Tools()) {
		t.Errorf("declared %d tools, the toolset offers %d", len(sent), len(ts.Tools()))
	}
	for _, tool := range ts.Tools() {
		def := sent[tool.Name]
		if tool.Name == toolset.BashTool {
			if !reflect.DeepEqual(def, map[string]any{"type": "bash_20250124", "name": "bash"}) {
				t.Errorf("bash declared as %v, want Anthropic's bash_20250124", def)
			}
			continue
		}
		if def["description"] != tool.Description {
			t.Errorf("%s: description %q, want the toolset's", tool.Name, def["description"])
		}
		if got, want := jsonOf(t, def["input_schema"]), jsonOf(t, tool.InputSchema); got != want {
			t.Errorf("%s: input_schema\n%s\nwant the toolset's\n%s", tool.Name, got, want)
		}
	}
}

// jsonOf is v as canonical JSON.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var round any
	json.Unmarshal(b, &round)
	b, _ = json.Marshal(round)
	return string(b)
}

// Call and BetaCall answer the tool_use blocks of a loop of one's own over
// Messages.New and Beta.Messages.New with the toolset's text unchanged,
// is_error set on an error; the request declares the tools as the runner does.
func TestCallLoop(t *testing.T) {
	loops := map[string]func(ctx context.Context, client sdk.Client, tools *anthropic.Tools) error{
		"Messages": func(ctx context.Context, client sdk.Client, tools *anthropic.Tools) error {
			p := sdk.MessageNewParams{Model: "claude-test", MaxTokens: 1024, Tools: tools.Definitions(),
				Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Do the task."))}}
			for {
				msg, err := client.Messages.New(ctx, p)
				if err != nil {
					return err
				}
				p.Messages = append(p.Messages, msg.ToParam())
				var results []sdk.ContentBlockParamUnion
				for _, block := range msg.Content {
					if block.Type == "tool_use" {
						res, err := tools.Call(ctx, block.AsToolUse())
						if err != nil {
							return err
						}
						results = append(results, sdk.ContentBlockParamUnion{OfToolResult: &res})
					}
				}
				if len(results) == 0 {
					return nil
				}
				p.Messages = append(p.Messages, sdk.NewUserMessage(results...))
			}
		},
		"Beta.Messages": func(ctx context.Context, client sdk.Client, tools *anthropic.Tools) error {
			p := params().BetaMessageNewParams
			p.Tools = tools.BetaDefinitions()
			for {
				msg, err := client.Beta.Messages.New(ctx, p)
				if err != nil {
					return err
				}
				p.Messages = append(p.Messages, msg.ToParam())
				var results []sdk.BetaContentBlockParamUnion
				for _, block := range msg.Content {
					if block.Type == "tool_use" {
						res, err := tools.BetaCall(ctx, block.AsToolUse())
						if err != nil {
							return err
						}
						results = append(results, sdk.BetaContentBlockParamUnion{OfToolResult: &res})
					}
				}
				if len(results) == 0 {
					return nil
				}
				p.Messages = append(p.Messages, sdk.NewBetaUserMessage(results...))
			}
		},
	}
	for name, loop := range loops {
		t.Run(name, func(t *testing.T) {
			ts, _ := newToolset(t, shellcap.Options{})
			m := newModel(t,
				calls(use{"bash", `{"command":"export N=7"}`}),
				calls(use{"bash", `{"command":"echo n=$N"}`}, use{"check_command", `{"command_id":"nope"}`}),
				final)
			conv := ts.Conversation("loop")
			defer conv.Close()
			tools, err := anthropic.New(ts, conv, anthropic.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := loop(ctx, m.client(), tools); err != nil {
				t.Fatal(err)
			}
			if len(m.results) != 3 {
				t.Fatalf("%d requests, want 3", len(m.results))
			}
			checkDefinitions(t, ts, m.requests[0].Tools)
			got := m.results[2]
			if len(got) != 2 || got[0].IsError || got[0].text() != "[stdout]\nn=7\n" {
				t.Errorf("bash: %+v", got)
			}
			if len(got) == 2 && (!got[1].IsError || got[1].text() != "[Error: unknown command ID 'nope']") {
				t.Errorf("check_command of an unknown job: is_error %v, %q", got[1].IsError, got[1].text())
			}
		})
	}
}

// BetaCall takes a block built by hand as well as one from a reply, and answers
// a tool the toolset does not offer with is_error.
func TestCallBlocks(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	conv := ts.Conversation("blocks")
	defer conv.Close()
	tools, err := anthropic.New(ts, conv, anthropic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		block   sdk.BetaToolUseBlock
		isError bool
		text    string
	}{
		{sdk.BetaToolUseBlock{ID: "t1", Name: "bash", Input: map[string]any{"command": "echo built"}}, false, "[stdout]\nbuilt\n"},
		{sdk.BetaToolUseBlock{ID: "t2", Name: "str_replace_based_edit_tool", Input: map[string]any{}}, true, `Unknown tool "str_replace_based_edit_tool"; the tools are run_command, start_command, check_command, wait_command, send_input, stop_command, list_commands, shell, bash.`},
	}
	for _, tt := range tests {
		res, err := tools.BetaCall(context.Background(), tt.block)
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range res.Content {
			text += c.OfText.Text
		}
		if res.ToolUseID != tt.block.ID || res.IsError.Value != tt.isError || text != tt.text {
			t.Errorf("%s: %s is_error %v %q, want is_error %v %q", tt.block.Name, res.ToolUseID, res.IsError.Value, text, tt.isError, tt.text)
		}
	}
}

// The streaming tool runner carries the same calls: a bash session across
// turns and a job stopped in a later turn.
func TestStreamingRunner(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	var id string
	m := newModel(t,
		calls(use{"bash", `{"command":"X=streamed"}`}, use{"start_command", `{"command":"exec sleep 600"}`}),
		func(t *testing.T, results []received) []use {
			for _, r := range results {
				if found := jobID.FindString(r.text()); found != "" {
					id = found
				}
			}
			return []use{{"bash", `{"command":"echo $X"}`}, {"stop_command", `{"command_id":"` + id + `"}`}}
		},
		final)
	conv := ts.Conversation("stream")
	defer conv.Close()
	tools, err := anthropic.New(ts, conv, anthropic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client := m.client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	runner := tools.NewToolRunnerStreaming(&client.Beta.Messages, params())
	var text strings.Builder
	for events := range runner.AllStreaming(ctx) {
		for event, err := range events {
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := event.AsAny().(sdk.BetaRawContentBlockDeltaEvent); ok {
				text.WriteString(d.Delta.Text)
			}
		}
	}
	if text.String() != "done" || len(m.results) != 3 {
		t.Fatalf("streamed %q over %d requests, want done over 3", text.String(), len(m.results))
	}
	if id == "" {
		t.Fatalf("no job ID in %+v", m.results[1])
	}
	got := m.results[2]
	if len(got) != 2 || got[0].text() != "[stdout]\nstreamed\n" || !strings.Contains(got[1].text(), "[exit code: 143]") {
		t.Errorf("the model read %+v", got)
	}
}

// A BetaTool's Execute returns what the toolset reports as an error as a
// *ToolError carrying the text and the reason.
func TestExecuteError(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{Policy: policy.Rules{Approval: true}})
	conv := ts.Conversation("execute")
	defer conv.Close()
	tools, err := anthropic.New(ts, conv, anthropic.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		input  string
		reason error
	}{
		{`{"command":"rm -r ."}`, shellcap.ErrDenied},
		{`{"command":"touch x"}`, shellcap.ErrNotApproved},
	}
	for _, tool := range tools.BetaTools() {
		if tool.Name() != "run_command" {
			continue
		}
		for _, tt := range tests {
			content, err := tool.Execute(context.Background(), []byte(tt.input))
			var te *anthropic.ToolError
			if !errors.As(err, &te) || te.Tool != "run_command" || te.Text == "" || err.Error() != te.Text || !errors.Is(err, tt.reason) || content != nil {
				t.Errorf("%s: content %v, err %#v, want a *ToolError wrapping %v", tt.input, content, err, tt.reason)
			}
		}
		content, err := tool.Execute(context.Background(), []byte(`{"command":"ls"}`))
		if err != nil || len(content) != 1 || content[0].OfText == nil {
			t.Errorf("ls: content %v, err %v", content, err)
		}
	}
}

func TestNewRefusesNil(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	if _, err := anthropic.New(ts, nil, anthropic.Options{}); !errors.Is(err, anthropic.ErrNoToolset) {
		t.Errorf("New without a conversation: %v, want ErrNoToolset", err)
	}
	if _, err := anthropic.New(nil, ts.Conversation("x"), anthropic.Options{}); !errors.Is(err, anthropic.ErrNoToolset) {
		t.Errorf("New without a toolset: %v, want ErrNoToolset", err)
	}
}

// Options.Output and Options.Event get a command's output while the tool
// runner waits for the call.
func TestOutputHooks(t *testing.T) {
	ts, _ := newToolset(t, shellcap.Options{})
	var mu sync.Mutex
	var streamed, events strings.Builder
	opts := anthropic.Options{
		Output: func(s shellcap.Stream, data []byte) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(&streamed, "%v:%s", s, data)
		},
		Event: func(e jobs.ShellEvent) {
			mu.Lock()
			defer mu.Unlock()
			if e.Kind == jobs.ShellOutput {
				events.WriteString(e.Text)
			}
		},
	}
	m := run(t, ts, "chat-1", opts,
		calls(use{"run_command", `{"command":"echo streamed"}`}),
		calls(use{"shell", `{"command":"echo evented"}`}))
	if got := only(t, m.results[1]).text(); got != "[stdout]\nstreamed\n" {
		t.Errorf("run_command: the model read %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(streamed.String(), "streamed") {
		t.Errorf("Options.Output got %q, want the command's output", streamed.String())
	}
	if !strings.Contains(events.String(), "evented") {
		t.Errorf("Options.Event got output %q, want the shell command's", events.String())
	}
}
