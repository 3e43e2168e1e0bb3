package shellgenkit_test

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/shellcap/shellcap"
	shellgenkit "github.com/shellcap/shellcap/adapters/genkit"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/toolset"
)

var testMark = leaktest.Mark("SCTEST_GENKIT_MARK")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// step is one reply of the scripted model: given the tool outputs it just
// received (none on the first step of a turn), the parts of its message. A
// reply without tool requests ends the turn.
type step func(got []shellgenkit.Output) []*ai.Part

// harness is a Genkit instance with shellcap's tools and a scripted model
// that records every tool output it receives.
type harness struct {
	t     *testing.T
	g     *genkit.Genkit
	ts    *toolset.Toolset
	tools *shellgenkit.Tools
	model ai.Model

	mu       sync.Mutex
	steps    []step
	received [][]shellgenkit.Output // per model call, the tool outputs it got

	// wrap, when set, adds to the context of every Generate (the
	// progress hooks).
	wrap func(context.Context) context.Context
}

// newHarness builds the harness on a real Shell in a fresh workspace, with a
// job Manager and toolset.Approve as the Shell's approver.
func newHarness(t *testing.T, sopts shellcap.Options) *harness {
	t.Helper()
	sopts.Env = leaktest.Env(testMark)
	ts, _ := toolsettest.New(t, toolsettest.Options{Shell: sopts})
	h := &harness{t: t, ts: ts}
	// genkit.Init watches for signals until its context ends.
	gctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	h.g = genkit.Init(gctx)
	h.tools = shellgenkit.Define(h.g, ts)
	h.model = genkit.DefineModel(h.g, "script/model", &ai.ModelOptions{
		Supports: &ai.ModelSupports{Multiturn: true, Tools: true, SystemRole: true},
	}, h.reply)
	return h
}

// reply is the scripted model: it records the tool outputs of the last
// message and answers with the next step.
func (h *harness) reply(_ context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	var got []shellgenkit.Output
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == ai.RoleTool {
		for _, p := range req.Messages[n-1].Content {
			if p.IsToolResponse() {
				got = append(got, decodeOutput(h.t, p.ToolResponse.Output))
			}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.received = append(h.received, got)
	if len(h.steps) == 0 {
		h.t.Error("the model was called with no step left")
		return &ai.ModelResponse{Message: ai.NewModelTextMessage("no step left")}, nil
	}
	s := h.steps[0]
	h.steps = h.steps[1:]
	return &ai.ModelResponse{Request: req, Message: &ai.Message{Role: ai.RoleModel, Content: s(got)}, FinishReason: ai.FinishReasonStop}, nil
}

func decodeOutput(t *testing.T, v any) shellgenkit.Output {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out shellgenkit.Output
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("tool output %s: %v", b, err)
	}
	return out
}

// generate runs one genkit.Generate over history (plus prompt, when not
// empty) in conversation conv, with the model's steps for it.
func (h *harness) generate(conv *toolset.Conversation, history []*ai.Message, prompt string, extra []ai.GenerateOption, steps ...step) (*ai.ModelResponse, error) {
	h.mu.Lock()
	h.steps = append(h.steps, steps...)
	h.received = nil
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if h.wrap != nil {
		ctx = h.wrap(ctx)
	}
	if conv != nil {
		ctx = shellgenkit.WithConversation(ctx, conv)
	}
	opts := []ai.GenerateOption{ai.WithModel(h.model), ai.WithTools(h.tools.Refs()...)}
	if len(history) > 0 {
		opts = append(opts, ai.WithMessages(history...))
	}
	if prompt != "" {
		opts = append(opts, ai.WithPrompt(prompt))
	}
	return genkit.Generate(ctx, h.g, append(opts, extra...)...)
}

// turn is generate that fails the test on an error.
func (h *harness) turn(conv *toolset.Conversation, history []*ai.Message, prompt string, extra []ai.GenerateOption, steps ...step) *ai.ModelResponse {
	h.t.Helper()
	resp, err := h.generate(conv, history, prompt, extra, steps...)
	if err != nil {
		h.t.Fatalf("Generate: %v", err)
	}
	return resp
}

// got returns the tool outputs the model received on its call i of the
// last Generate.
func (h *harness) got(i int) []shellgenkit.Output {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if i >= len(h.received) {
		h.t.Fatalf("the model was called %d times, not %d", len(h.received), i+1)
	}
	return h.received[i]
}

// callTool is a step that requests one tool call.
func callTool(name string, args map[string]any) step {
	return func([]shellgenkit.Output) []*ai.Part {
		return []*ai.Part{ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: "call-1", Input: args})}
	}
}

// say is a step that ends the turn with text.
func say(text string) step {
	return func([]shellgenkit.Output) []*ai.Part { return []*ai.Part{ai.NewTextPart(text)} }
}

// direct is what the toolset itself gives for the call, in a conversation
// of its own: what the model must receive through Genkit.
func (h *harness) direct(name, args string) *toolset.Result {
	h.t.Helper()
	conv := h.ts.Conversation("direct-" + h.t.Name())
	defer conv.Close()
	res, err := conv.Call(context.Background(), name, json.RawMessage(args), toolset.Hooks{})
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}
