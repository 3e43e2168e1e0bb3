package langchaingo_test

import (
	"context"
	"errors"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/llms"
)

// TestOutputHook: Options.Output receives a command's output as it runs,
// and the tool call still answers with the whole result.
func TestOutputHook(t *testing.T) {
	var mu sync.Mutex
	var streamed strings.Builder
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{Output: func(s shellcap.Stream, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		if s == shellcap.Stdout {
			streamed.Write(data)
		}
	}})
	resp, err := a.Call(testCtx(t), llms.ToolCall{ID: "o1", FunctionCall: &llms.FunctionCall{Name: toolset.RunCommand, Arguments: `{"command":"echo one; echo two"}`}})
	if err != nil || resp.Content != "[stdout]\none\ntwo\n" {
		t.Fatalf("%+v, %v", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if streamed.String() != "one\ntwo\n" {
		t.Errorf("streamed %q", streamed.String())
	}
}

// TestBadToolCall: a tool call without a function is answered, naming the
// tools, so that every call ID gets its response.
func TestBadToolCall(t *testing.T) {
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{})
	resp, err := a.Call(testCtx(t), llms.ToolCall{ID: "b1"})
	if err != nil || resp.ToolCallID != "b1" || !strings.Contains(resp.Content, `Tool call "b1" names no function. Call one of: run_command,`) {
		t.Errorf("%+v, %v", resp, err)
	}
}

// errLog records tool errors.
type errLog struct {
	toolLog
	errs []error
}

func (l *errLog) HandleToolError(_ context.Context, err error) { l.errs = append(l.errs, err) }

// TestContextEnds: when the context of a run ends during a command, the
// tool returns the context's error, which stops agents.Executor, and the
// callbacks hear of it.
func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(testCtx(t))
	log := &errLog{}
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{Callbacks: log, Output: func(shellcap.Stream, []byte) { cancel() }})
	var prompts []string
	model := reactScript([]action{{"run_command", `{"command":"echo started; sleep 60"}`, nil}}, "never", &prompts)
	exec := agents.NewExecutor(agents.NewOneShotAgent(model, a.Tools()))
	_, err := chains.Run(ctx, exec, "Run it.")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("executor: %v, want context.Canceled", err)
	}
	if len(log.errs) != 1 || !errors.Is(log.errs[0], context.Canceled) {
		t.Errorf("tool errors %v", log.errs)
	}

	// Native tool calling: Respond reports it too.
	ctx, cancel = context.WithCancel(testCtx(t))
	a, _ = setup(t, policy.Rules{}, langchaingo.Options{Output: func(shellcap.Stream, []byte) { cancel() }})
	choice := toolCalls([]call{{"x1", "run_command", `{"command":"echo started; sleep 60"}`, nil}})
	if msgs, err := a.Respond(ctx, choice); !errors.Is(err, context.Canceled) || msgs != nil {
		t.Errorf("Respond: %v, %v, want context.Canceled", msgs, err)
	}
}

// TestStateless: without a conversation each bash call gets a new shell,
// named in the result so that a later call can reach it by session_id.
func TestStateless(t *testing.T) {
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{})
	stateless := langchaingo.New(a.Toolset(), nil, langchaingo.Options{})
	bash := func(args string) string {
		t.Helper()
		resp, err := stateless.Call(testCtx(t), llms.ToolCall{ID: "s", FunctionCall: &llms.FunctionCall{Name: toolset.BashTool, Arguments: args}})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Content
	}
	first := bash(`{"command":"cd /tmp"}`)
	m := regexp.MustCompile(`session_id: ([0-9a-f]+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("no session_id in %q", first)
	}
	if got := bash(`{"command":"pwd"}`); strings.Contains(got, "/tmp\n") {
		t.Errorf("a stateless call reached another call's shell: %q", got)
	}
	if got := bash(`{"command":"pwd","session_id":"` + m[1] + `"}`); !strings.Contains(got, "[stdout]\n/tmp\n") {
		t.Errorf("session_id %s did not reach its shell: %q", m[1], got)
	}
}
