package anthropic_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// received is a tool_result as the model receives it on the wire.
type received struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// text is the result's text blocks, joined.
func (r received) text() string {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "")
}

// request is what the scripted model reads of a Messages API request.
type request struct {
	Stream   bool             `json:"stream"`
	Tools    []map[string]any `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// results returns the tool_result blocks of the request's last user message.
func (r request) results(t *testing.T) []received {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var blocks []json.RawMessage
		if json.Unmarshal(m.Content, &blocks) != nil {
			return nil // a plain string prompt
		}
		var out []received
		for _, b := range blocks {
			var head struct{ Type string }
			json.Unmarshal(b, &head)
			if head.Type != "tool_result" {
				continue
			}
			var res received
			if err := json.Unmarshal(b, &res); err != nil {
				t.Errorf("tool_result %s: %v", b, err)
			}
			out = append(out, res)
		}
		return out
	}
	return nil
}

// use is one tool_use block of a scripted turn.
type use struct {
	name  string
	input string // JSON
}

// turn is one scripted reply: tool calls, or (none) the final answer. It
// reads the tool results the model received for the previous turn.
type turn func(t *testing.T, results []received) []use

// model is a scripted model behind an httptest server speaking the Messages
// API: each request is answered by the next turn.
type model struct {
	t     *testing.T
	srv   *httptest.Server
	turns []turn

	mu       sync.Mutex
	n        int
	requests []request
	results  [][]received // the tool results each request carried
}

func newModel(t *testing.T, turns ...turn) *model {
	t.Helper()
	m := &model{t: t, turns: turns}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		m.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		http.Error(w, "unexpected", http.StatusNotImplemented)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		m.t.Errorf("request body: %v\n%s", err, body)
	}
	m.mu.Lock()
	n := m.n
	m.n++
	results := req.results(m.t)
	m.requests = append(m.requests, req)
	m.results = append(m.results, results)
	m.mu.Unlock()
	if n >= len(m.turns) {
		m.t.Errorf("request %d: only %d turns scripted", n+1, len(m.turns))
		http.Error(w, "unscripted", http.StatusInternalServerError)
		return
	}
	uses := m.turns[n](m.t, results)
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		streamReply(w, n, uses)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, reply(n, uses))
}

// streamReply writes the reply as the Messages API streams it: each tool
// call's input arrives in an input_json_delta.
func streamReply(w io.Writer, n int, uses []use) {
	event := func(typ, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, data) }
	event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}`, n))
	for i, u := range uses {
		event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d_%d","name":%q,"input":{}}}`, i, n, i, u.name))
		partial, _ := json.Marshal(u.input)
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, partial))
		event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	stop := "tool_use"
	if len(uses) == 0 {
		stop = "end_turn"
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`)
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	}
	event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":1}}`, stop))
	event("message_stop", `{"type":"message_stop"}`)
}

// reply is a Messages API response: the tool calls, or a final text.
func reply(n int, uses []use) string {
	var content []string
	for i, u := range uses {
		content = append(content, fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d_%d","name":%q,"input":%s}`, n, i, u.name, u.input))
	}
	stop := "tool_use"
	if len(uses) == 0 {
		content = []string{`{"type":"text","text":"done"}`}
		stop = "end_turn"
	}
	return fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":"claude-test","content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`,
		n, strings.Join(content, ","), stop)
}

// client is an SDK client of the scripted model.
func (m *model) client() sdk.Client {
	return sdk.NewClient(option.WithBaseURL(m.srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
}

// calls is a turn making the given calls, whatever it received.
func calls(uses ...use) turn {
	return func(*testing.T, []received) []use { return uses }
}

// final is the last turn: it records the last results and answers.
func final(*testing.T, []received) []use { return nil }

// params are the runner's params of a test: one user prompt.
func params() sdk.BetaToolRunnerParams {
	return sdk.BetaToolRunnerParams{BetaMessageNewParams: sdk.BetaMessageNewParams{
		Model:     "claude-test",
		MaxTokens: 1024,
		Messages:  []sdk.BetaMessageParam{sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("Do the task."))},
	}}
}

// only returns the single tool result of a request, failing otherwise.
func only(t *testing.T, results []received) received {
	t.Helper()
	if len(results) != 1 {
		t.Fatalf("got %d tool results, want 1: %+v", len(results), results)
	}
	return results[0]
}
