package eino_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"

	shelleino "github.com/shellcap/shellcap/adapters/eino"
)

// TestToolInfo: each Eino tool tells the model the toolset's name,
// description and hand-written input schema, unchanged.
func TestToolInfo(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	tools := bind(t, ts, nil)
	if len(tools) != len(ts.Tools()) {
		t.Fatalf("%d Eino tools for %d toolset tools", len(tools), len(ts.Tools()))
	}
	for i, et := range tools {
		want := ts.Tools()[i]
		info, err := et.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.Name != want.Name || info.Desc != want.Description {
			t.Errorf("tool %d: %q %q, want %q and the toolset's description", i, info.Name, info.Desc, want.Name)
		}
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			t.Fatalf("%s: %v", want.Name, err)
		}
		if got, want := roundTrip(t, js), roundTrip(t, want.InputSchema); !reflect.DeepEqual(got, want) {
			t.Errorf("%s schema changed:\n got %v\nwant %v", info.Name, got, want)
		}
		if _, ok := et.(tool.InvokableTool); !ok {
			t.Errorf("%s is not an InvokableTool", info.Name)
		}
		if _, ok := et.(tool.StreamableTool); !ok {
			t.Errorf("%s is not a StreamableTool", info.Name)
		}
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestToolsNodeInvokeAndStream: Eino's ToolsNode calls the tools as
// InvokableTool (Invoke) and as StreamableTool (Stream), and both give
// the model the same text; Config.Output gets the output as it arrives,
// with the tool call's context.
func TestToolsNodeInvokeAndStream(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	conv := ts.Conversation("node")
	defer conv.Close()
	var mu sync.Mutex
	live := map[string]string{}
	var paths []string
	tools, err := shelleino.Tools(shelleino.Config{
		Toolset:      ts,
		Conversation: conv,
		Tools:        []string{toolset.RunCommand},
		Output: func(ctx context.Context, _ shellcap.Stream, data []byte) {
			mu.Lock()
			live[compose.GetToolCallID(ctx)] += string(data)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	record := func(path string) {
		mu.Lock()
		paths = append(paths, path)
		mu.Unlock()
	}
	node, err := compose.NewToolNode(context.Background(), &compose.ToolsNodeConfig{Tools: tools, ToolCallMiddlewares: pathRecorder(record)})
	if err != nil {
		t.Fatal(err)
	}
	msg := func(id string) *schema.Message {
		return schema.AssistantMessage("", []schema.ToolCall{{ID: id, Type: "function",
			Function: schema.FunctionCall{Name: toolset.RunCommand, Arguments: `{"command":"echo live-` + id + `; exit 2"}`}}})
	}
	ctx := context.Background()
	out, err := node.Invoke(ctx, msg("a"))
	if err != nil {
		t.Fatal(err)
	}
	invoked := out[0].Content
	sr, err := node.Stream(ctx, msg("b"))
	if err != nil {
		t.Fatal(err)
	}
	var chunks [][]*schema.Message
	for {
		c, err := sr.Recv()
		if err != nil {
			break
		}
		chunks = append(chunks, c)
	}
	var streamed strings.Builder
	for _, c := range chunks {
		for _, m := range c {
			if m != nil {
				streamed.WriteString(m.Content)
			}
		}
	}
	if want := "[stdout]\nlive-a\n\n[exit code: 2]"; invoked != want {
		t.Errorf("Invoke gave %q, want %q", invoked, want)
	}
	if got, want := streamed.String(), strings.ReplaceAll(invoked, "live-a", "live-b"); got != want {
		t.Errorf("Stream gave %q, want %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(paths, []string{"invoke", "stream"}) {
		t.Errorf("ToolsNode took the paths %v", paths)
	}
	if live["a"] != "live-a\n" || live["b"] != "live-b\n" {
		t.Errorf("live output by tool call: %q", live)
	}
}

// TestConversationFor: ConversationFor routes each call to its
// conversation by context; a nil answer falls back to Conversation.
func TestConversationFor(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	type key struct{}
	fallback := ts.Conversation("fallback")
	defer fallback.Close()
	tools, err := shelleino.Tools(shelleino.Config{
		Toolset:      ts,
		Conversation: fallback,
		Tools:        []string{toolset.BashTool},
		ConversationFor: func(ctx context.Context) *toolset.Conversation {
			if id, ok := ctx.Value(key{}).(string); ok {
				return ts.Conversation(id)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	bash := tools[0].(tool.InvokableTool)
	run := func(ctx context.Context, cmd string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"command": cmd})
		out, err := bash.InvokableRun(ctx, string(args))
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	alice := context.WithValue(context.Background(), key{}, "alice")
	bob := context.WithValue(context.Background(), key{}, "bob")
	run(alice, "X=alice")
	run(bob, "X=bob")
	run(context.Background(), "X=fallback")
	for ctx, want := range map[context.Context]string{alice: "alice", bob: "bob", context.Background(): "fallback"} {
		mustContain(t, want, run(ctx, `echo "[$X]"`), "["+want+"]")
	}
	ts.Conversation("alice").Close()
	ts.Conversation("bob").Close()
}

// TestConfigErrors: a Config without a toolset, an unknown tool and a
// Backend without file operations are refused with their errors.
func TestConfigErrors(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	if _, err := shelleino.Tools(shelleino.Config{}); !errors.Is(err, shelleino.ErrNoToolset) {
		t.Errorf("no toolset: %v", err)
	}
	if _, err := shelleino.Tools(shelleino.Config{Toolset: ts, Tools: []string{"rm_rf"}}); !errors.Is(err, toolset.ErrUnknownTool) || !strings.Contains(err.Error(), "rm_rf") {
		t.Errorf("unknown tool: %v", err)
	}
	if _, err := shelleino.NewBackend(nil, shelleino.Config{Toolset: ts}); !errors.Is(err, shelleino.ErrNoFiles) {
		t.Errorf("no files: %v", err)
	}
	if _, err := shelleino.NewBackend(filesystem.NewInMemoryBackend(), shelleino.Config{}); !errors.Is(err, shelleino.ErrNoToolset) {
		t.Errorf("backend without toolset: %v", err)
	}
}

// TestEventHook: the shell tool's job events reach Config.Event with the
// call's context.
func TestEventHook(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	conv := ts.Conversation("events")
	defer conv.Close()
	type key struct{}
	var mu sync.Mutex
	var kinds []jobs.ShellEventKind
	var ctxOK bool
	tools, err := shelleino.Tools(shelleino.Config{
		Toolset:      ts,
		Conversation: conv,
		Tools:        []string{toolset.ShellTool},
		Event: func(ctx context.Context, e jobs.ShellEvent) {
			mu.Lock()
			kinds = append(kinds, e.Kind)
			ctxOK = ctx.Value(key{}) == "call"
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), key{}, "call")
	out, err := tools[0].(tool.InvokableTool).InvokableRun(ctx, `{"command":"echo evented"}`)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, "shell", out, "evented")
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(kinds, jobs.ShellStarted) || !ctxOK {
		t.Errorf("events %v (call context %v)", kinds, ctxOK)
	}
}
