package eino_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/toolset"

	shelleino "github.com/shellcap/shellcap/adapters/eino"
)

// newToolset builds a toolset on a real Shell in a fresh workspace, with
// a job Manager and toolset.Approve as the Shell's approver.
func newToolset(t *testing.T, sopts shellcap.Options) *toolset.Toolset {
	t.Helper()
	sopts.Approve = nil // toolset.Approve
	ts, _ := toolsettest.New(t, toolsettest.Options{Shell: sopts})
	return ts
}

// A step is the scripted model's answer to what it received.
type step func(in []*schema.Message) *schema.Message

// callTools is a step that calls tools, each given as name and JSON
// arguments.
func callTools(nameArgs ...string) step {
	return func([]*schema.Message) *schema.Message {
		var calls []schema.ToolCall
		for i := 0; i+1 < len(nameArgs); i += 2 {
			calls = append(calls, schema.ToolCall{
				ID:       fmt.Sprintf("call-%d-%s", i/2, nameArgs[i]),
				Type:     "function",
				Function: schema.FunctionCall{Name: nameArgs[i], Arguments: nameArgs[i+1]},
			})
		}
		return schema.AssistantMessage("", calls)
	}
}

// say is a step that ends the turn with a text.
func say(text string) step {
	return func([]*schema.Message) *schema.Message { return schema.AssistantMessage(text, nil) }
}

// scripted is an in-process Eino ToolCallingChatModel that answers from
// a script and records what it received.
type scripted struct {
	mu       sync.Mutex
	steps    []step
	tools    []*schema.ToolInfo
	received [][]*schema.Message
}

func (m *scripted) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.received = append(m.received, in)
	if len(m.steps) == 0 {
		return nil, errors.New("scripted model: out of steps")
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	return s(in), nil
}

func (m *scripted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, in, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *scripted) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	m.mu.Lock()
	m.tools = tools
	m.mu.Unlock()
	return m, nil
}

// toolResults are the tool messages the model received last, by tool
// call ID.
func (m *scripted) toolResults() map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	if len(m.received) == 0 {
		return out
	}
	for _, msg := range m.received[len(m.received)-1] {
		if msg.Role == schema.Tool {
			out[msg.ToolCallID] = msg.Content
		}
	}
	return out
}

// lastToolResult is the content of the last tool message the model
// received.
func (m *scripted) lastToolResult(t *testing.T) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.received) == 0 {
		t.Fatal("the model received nothing")
	}
	in := m.received[len(m.received)-1]
	for i := len(in) - 1; i >= 0; i-- {
		if in[i].Role == schema.Tool {
			return in[i].Content
		}
	}
	t.Fatalf("the model received no tool result: %v", in)
	return ""
}

// memStore is an in-memory adk.CheckPointStore.
type memStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memStore) Get(_ context.Context, id string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[id]
	return b, ok, nil
}

func (s *memStore) Set(_ context.Context, id string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[id] = b
	return nil
}

// agent is an Eino ChatModelAgent run by an adk.Runner with checkpoints,
// its model scripted.
type agent struct {
	t      *testing.T
	model  *scripted
	runner *adk.Runner
}

// agentConfig says how to build an agent: its tools, or middlewares.
type agentConfig struct {
	tools       []tool.BaseTool
	middlewares []adk.AgentMiddleware
	streaming   bool
	// called, when set, is told each tool call's path through the
	// ToolsNode: "invoke" or "stream".
	called func(path string)
}

func newAgent(t *testing.T, c agentConfig) *agent {
	t.Helper()
	m := &scripted{}
	a, err := adk.NewChatModelAgent(context.Background(), &adk.ChatModelAgentConfig{
		Name:        "shell-agent",
		Description: "runs commands",
		Model:       m,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: c.tools, ToolCallMiddlewares: pathRecorder(c.called)}},
		Middlewares: c.middlewares,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := adk.NewRunner(context.Background(), adk.RunnerConfig{Agent: a, EnableStreaming: c.streaming, CheckPointStore: &memStore{}})
	return &agent{t: t, model: m, runner: r}
}

// outcome is how a turn ended: the agent's last text, or the interrupts
// it is waiting on.
type outcome struct {
	text       string
	interrupts []*adk.InterruptCtx
}

// drain reads a run's events to the end.
func (a *agent) drain(iter *adk.AsyncIterator[*adk.AgentEvent]) outcome {
	a.t.Helper()
	var o outcome
	for {
		ev, ok := iter.Next()
		if !ok {
			return o
		}
		if ev.Err != nil {
			a.t.Fatalf("agent event error: %v", ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			for _, ic := range ev.Action.Interrupted.InterruptContexts {
				if ic.IsRootCause {
					o.interrupts = append(o.interrupts, ic)
				}
			}
		}
		if ev.Output != nil && ev.Output.MessageOutput != nil {
			mv := ev.Output.MessageOutput
			msg, err := mv.GetMessage()
			if err != nil {
				a.t.Fatalf("agent message: %v", err)
			}
			if mv.Role == schema.Assistant && msg.Content != "" {
				o.text = msg.Content
			}
		}
	}
}

// turn is one user turn: the model follows the steps.
func (a *agent) turn(checkpoint, query string, steps ...step) outcome {
	a.t.Helper()
	a.model.mu.Lock()
	a.model.steps = steps
	a.model.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return a.drain(a.runner.Query(ctx, query, adk.WithCheckPointID(checkpoint)))
}

// resume resumes an interrupted turn with answers by interrupt ID; the
// model follows the steps.
func (a *agent) resume(checkpoint string, answers map[string]any, steps ...step) outcome {
	a.t.Helper()
	a.model.mu.Lock()
	a.model.steps = steps
	a.model.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	iter, err := a.runner.ResumeWithParams(ctx, checkpoint, &adk.ResumeParams{Targets: answers})
	if err != nil {
		a.t.Fatalf("resume: %v", err)
	}
	return a.drain(iter)
}

// mustContain fails the test unless s contains every want.
func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// bind binds every tool of ts to Eino, in conversation conv.
func bind(t *testing.T, ts *toolset.Toolset, conv *toolset.Conversation) []tool.BaseTool {
	t.Helper()
	tools, err := shelleino.Tools(shelleino.Config{Toolset: ts, Conversation: conv})
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// pathRecorder is ToolsNode middleware that tells called which path each
// tool call takes; nil for a nil called.
func pathRecorder(called func(string)) []compose.ToolMiddleware {
	if called == nil {
		return nil
	}
	return []compose.ToolMiddleware{{
		Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
				called("invoke")
				return next(ctx, in)
			}
		},
		Streamable: func(next compose.StreamableToolEndpoint) compose.StreamableToolEndpoint {
			return func(ctx context.Context, in *compose.ToolInput) (*compose.StreamToolOutput, error) {
				called("stream")
				return next(ctx, in)
			}
		},
	}}
}
