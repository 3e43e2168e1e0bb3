package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/shellcap/shellcap"
	shellopenai "github.com/shellcap/shellcap/adapters/openai"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/toolset"
)

var testMark = leaktest.Mark("SCTEST_OPENAI_MARK")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// newToolset builds a toolset with job tools on an unconfined Shell in a
// fresh workspace, with toolset.Approve as the Shell's approver.
func newToolset(t *testing.T, sopts shellcap.Options) *toolset.Toolset {
	t.Helper()
	sopts.Env = leaktest.Env(testMark)
	ts, _ := toolsettest.New(t, toolsettest.Options{Shell: sopts})
	return ts
}

func newAdapter(t *testing.T, opts shellopenai.Options) *shellopenai.Adapter {
	t.Helper()
	ad, err := shellopenai.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return ad
}

// model is a scripted model behind an httptest server speaking the
// provider's wire format: each request gets the reply its turn function
// writes, given the request body; the bodies are kept for the test to read
// what the model received.
type model struct {
	mu    sync.Mutex
	turns []func(req map[string]any) string
	reqs  []map[string]any
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reqs = append(m.reqs, req)
	if len(m.turns) == 0 {
		http.Error(w, `{"error":{"message":"script ended"}}`, http.StatusInternalServerError)
		return
	}
	turn := m.turns[0]
	m.turns = m.turns[1:]
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, turn(req))
}

// requests returns the bodies received so far.
func (m *model) requests() []map[string]any {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]map[string]any(nil), m.reqs...)
}

// newClient starts the scripted model and returns an SDK client talking
// to it.
func newClient(t *testing.T, turns ...func(req map[string]any) string) (openai.Client, *model) {
	t.Helper()
	m := &model{turns: turns}
	srv := httptest.NewServer(m)
	t.Cleanup(srv.Close)
	client := openai.NewClient(option.WithBaseURL(srv.URL+"/v1/"), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	return client, m
}

// toJSON marshals v for a scripted reply.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testCtx is a context with a deadline for one test.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
