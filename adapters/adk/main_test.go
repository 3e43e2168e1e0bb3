package adk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

var testMark = leaktest.Mark("SCTEST_ADK_MARK")

// TestMain checks that the tests leave no process, goroutine or file
// descriptor behind.
func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// scriptedModel is an in-process model.LLM: asked for a turn, it calls the
// tool the test queued; given the tool's response, it records what it
// received and ends the turn with text.
type scriptedModel struct {
	mu        sync.Mutex
	next      [][]*genai.FunctionCall
	responses []*genai.FunctionResponse
	requests  []*model.LLMRequest
	calls     int
}

func (m *scriptedModel) Name() string { return "scripted" }

func (m *scriptedModel) GenerateContent(_ context.Context, req *model.LLMRequest, _ bool) iter.Seq2[*model.LLMResponse, error] {
	return func(yield func(*model.LLMResponse, error) bool) {
		m.mu.Lock()
		m.requests = append(m.requests, req)
		var resp *model.LLMResponse
		last := req.Contents[len(req.Contents)-1]
		var got []*genai.FunctionResponse
		for _, p := range last.Parts {
			if p.FunctionResponse != nil {
				got = append(got, p.FunctionResponse)
			}
		}
		switch {
		case len(got) > 0:
			m.responses = append(m.responses, got...)
			resp = &model.LLMResponse{Content: genai.NewContentFromText("done", genai.RoleModel)}
		case len(m.next) > 0:
			content := &genai.Content{Role: genai.RoleModel}
			for _, fc := range m.next[0] {
				m.calls++
				fc.ID = fmt.Sprintf("call-%d", m.calls)
				content.Parts = append(content.Parts, &genai.Part{FunctionCall: fc})
			}
			m.next = m.next[1:]
			resp = &model.LLMResponse{Content: content}
		default:
			resp = &model.LLMResponse{Content: genai.NewContentFromText("nothing to do", genai.RoleModel)}
		}
		m.mu.Unlock()
		yield(resp, nil)
	}
}

// queue makes the model call tool name with args on its next turn.
func (m *scriptedModel) queue(name, args string) {
	m.queueParallel(name, args)
}

// queueParallel makes the model's next turn call several tools at once:
// name, args, name, args, ...
func (m *scriptedModel) queueParallel(nameArgs ...string) {
	var calls []*genai.FunctionCall
	for i := 0; i+1 < len(nameArgs); i += 2 {
		var a map[string]any
		if err := json.Unmarshal([]byte(nameArgs[i+1]), &a); err != nil {
			panic(err)
		}
		calls = append(calls, &genai.FunctionCall{Name: nameArgs[i], Args: a})
	}
	m.mu.Lock()
	m.next = append(m.next, calls)
	m.mu.Unlock()
}

// sawText reports whether any request the model received has a function
// response whose JSON contains s.
func (m *scriptedModel) sawText(s string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, req := range m.requests {
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse == nil {
					continue
				}
				b, _ := json.Marshal(p.FunctionResponse.Response)
				if strings.Contains(string(b), s) {
					return true
				}
			}
		}
	}
	return false
}

// lastResponse is the function response the model received last.
func (m *scriptedModel) lastResponse(t *testing.T) *genai.FunctionResponse {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.responses) == 0 {
		t.Fatal("the model received no function response")
	}
	return m.responses[len(m.responses)-1]
}

func (m *scriptedModel) responseCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.responses)
}

// harness is an llmagent with the shellcap toolset, run by ADK's runner
// on an in-memory session service.
type harness struct {
	model  *scriptedModel
	runner *runner.Runner
	svc    session.Service
	ts     *toolset.Toolset
	adk    *adk.Toolset
	ws     string
}

const appName, userID = "shellcap-test", "user-1"

func newHarness(t *testing.T, rules policy.Rules, opts adk.Options) *harness {
	t.Helper()
	return newHarnessWith(t, rules, opts, toolset.Options{})
}

// newHarnessWith is newHarness with toolset options (Shell and Jobs are
// set here).
func newHarnessWith(t *testing.T, rules policy.Rules, opts adk.Options, topts toolset.Options) *harness {
	t.Helper()
	ts, ws := toolsettest.New(t, toolsettest.Options{Shell: shellcap.Options{Policy: rules, Env: leaktest.Env(testMark)}, Toolset: topts})
	h := &harness{model: &scriptedModel{}, svc: session.InMemoryService(), ts: ts, ws: ws}
	h.adk = adk.New(ts, opts)
	a, err := llmagent.New(llmagent.Config{
		Name:     "coder",
		Model:    h.model,
		Toolsets: []tool.Toolset{h.adk},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.runner, err = runner.New(runner.Config{AppName: appName, Agent: a, SessionService: h.svc})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// newSession creates an ADK session and returns its ID.
func (h *harness) newSession(t *testing.T) string {
	t.Helper()
	s, err := h.svc.Create(t.Context(), &session.CreateRequest{AppName: appName, UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	return s.Session.ID()
}

// turn runs one turn of session sid with msg and returns its events.
func (h *harness) turn(t *testing.T, sid string, msg *genai.Content) []*session.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var evs []*session.Event
	for ev, err := range h.runner.Run(ctx, userID, sid, msg, agent.RunConfig{}) {
		if err != nil {
			t.Fatalf("turn: %v", err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// call makes the model call tool name with args in one turn of session sid,
// and returns the function response the model received.
func (h *harness) call(t *testing.T, sid, name, args string) map[string]any {
	t.Helper()
	before := h.model.responseCount()
	h.model.queue(name, args)
	h.turn(t, sid, genai.NewContentFromText("go on", genai.RoleUser))
	if h.model.responseCount() == before {
		t.Fatalf("%s %s: the model received no function response", name, args)
	}
	return h.model.lastResponse(t).Response
}

// confirmationRequest is the adk_request_confirmation call among evs, or nil.
func confirmationRequest(evs []*session.Event) *genai.FunctionCall {
	for _, ev := range evs {
		if ev.Content == nil {
			continue
		}
		for _, p := range ev.Content.Parts {
			if p.FunctionCall != nil && p.FunctionCall.Name == toolconfirmation.FunctionCallName {
				return p.FunctionCall
			}
		}
	}
	return nil
}

// confirm answers the confirmation request fc, as an application does.
func confirm(fc *genai.FunctionCall, confirmed bool, payload any) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		ID:       fc.ID,
		Name:     toolconfirmation.FunctionCallName,
		Response: map[string]any{"confirmed": confirmed, "payload": payload},
	}}}}
}

// turnCalling makes the model call tool name with args in one turn of
// session sid and returns the turn's events.
func (h *harness) turnCalling(t *testing.T, sid, name, args string) []*session.Event {
	t.Helper()
	h.model.queue(name, args)
	return h.turn(t, sid, genai.NewContentFromText("go on", genai.RoleUser))
}

// confirmationHint is the hint of the confirmation request fc.
func confirmationHint(t *testing.T, fc *genai.FunctionCall) string {
	t.Helper()
	var tc toolconfirmation.ToolConfirmation
	b, err := json.Marshal(fc.Args["toolConfirmation"])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tc); err != nil {
		t.Fatal(err)
	}
	return tc.Hint
}

// echoPayload is the payload of the confirmation request fc, as JSON
// decodes it: what an application echoes back.
func echoPayload(fc *genai.FunctionCall) any {
	b, _ := json.Marshal(fc.Args["toolConfirmation"])
	var tc struct {
		Payload map[string]any `json:"payload"`
	}
	_ = json.Unmarshal(b, &tc)
	return tc.Payload
}

// sameJSON reports whether a and b marshal to the same JSON.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
