package adk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/adk/v2/agent/llmagent"
	"google.golang.org/adk/v2/model/gemini"
	"google.golang.org/adk/v2/runner"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool"
	"google.golang.org/genai"
)

// liveServer is a stand-in for Gemini's Live API: after the setup
// exchange it sends the model's tool call, then passes on what the client
// sends (tool responses, and user turns with a streaming tool's chunks)
// as the texts the model reads.
type liveServer struct {
	call  string        // the toolCall message to send
	reads chan liveRead // what the client sent, in order
	sends chan string   // more messages to send
	url   string
}

// liveRead is one message of the client, as the model reads it.
type liveRead struct {
	toolResponse map[string]any // a function response's response
	text         string         // a user turn's text
}

func newLiveServer(t *testing.T, name string, args map[string]any) *liveServer {
	t.Helper()
	call, _ := json.Marshal(map[string]any{"toolCall": map[string]any{"functionCalls": []map[string]any{
		{"id": "call-1", "name": name, "args": args},
	}}})
	s := &liveServer{call: string(call), reads: make(chan liveRead, 64), sends: make(chan string, 4)}
	var up websocket.Upgrader
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			t.Errorf("upgrade: %v", err)
			return
		}
		defer conn.Close()
		if _, _, err := conn.ReadMessage(); err != nil { // the setup
			t.Errorf("setup: %v", err)
			return
		}
		if conn.WriteMessage(websocket.TextMessage, []byte(`{"setupComplete":{}}`)) != nil ||
			conn.WriteMessage(websocket.TextMessage, []byte(s.call)) != nil {
			return
		}
		done := make(chan struct{})
		defer close(done)
		go func() {
			for {
				select {
				case m := <-s.sends:
					if conn.WriteMessage(websocket.TextMessage, []byte(m)) != nil {
						return
					}
				case <-done:
					return
				}
			}
		}()
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				return
			}
			var m struct {
				ToolResponse *struct {
					FunctionResponses []struct {
						Response map[string]any `json:"response"`
					} `json:"functionResponses"`
				} `json:"toolResponse"`
				ClientContent *struct {
					Turns []struct {
						Parts []struct {
							Text string `json:"text"`
						} `json:"parts"`
					} `json:"turns"`
				} `json:"clientContent"`
			}
			if err := json.Unmarshal(b, &m); err != nil {
				t.Errorf("client sent %s: %v", b, err)
				return
			}
			if m.ToolResponse != nil {
				for _, fr := range m.ToolResponse.FunctionResponses {
					s.reads <- liveRead{toolResponse: fr.Response}
				}
			}
			if m.ClientContent != nil {
				for _, turn := range m.ClientContent.Turns {
					for _, p := range turn.Parts {
						s.reads <- liveRead{text: p.Text}
					}
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	s.url = "ws" + strings.TrimPrefix(srv.URL, "http")
	return s
}

// runLive runs a live session of an agent with shellcap's tools (opts) on
// the stand-in, until stop is called.
func runLive(t *testing.T, srv *liveServer, rules policy.Rules, opts adk.Options) (ws string, stop func()) {
	t.Helper()
	ts, ws := toolsettest.New(t, toolsettest.Options{Shell: shellcap.Options{Policy: rules, Env: leaktest.Env(testMark)}})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	m, err := gemini.NewModel(ctx, "gemini-live-standin", &genai.ClientConfig{
		Backend: genai.BackendGeminiAPI, APIKey: "offline", HTTPOptions: genai.HTTPOptions{BaseURL: srv.url},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := llmagent.New(llmagent.Config{Name: "coder", Model: m, Toolsets: []tool.Toolset{adk.New(ts, opts)}})
	if err != nil {
		t.Fatal(err)
	}
	svc := session.InMemoryService()
	r, err := runner.New(runner.Config{AppName: appName, Agent: a, SessionService: svc})
	if err != nil {
		t.Fatal(err)
	}
	s, err := svc.Create(ctx, &session.CreateRequest{AppName: appName, UserID: userID})
	if err != nil {
		t.Fatal(err)
	}
	live, events, err := r.RunLive(ctx, userID, s.Session.ID(), agent.LiveRunConfig{})
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for range events {
		}
	}()
	return ws, func() {
		cancel()
		live.Close()
		<-drained
	}
}

// next is the client's next message, or a failure after a minute.
func (s *liveServer) next(t *testing.T) liveRead {
	t.Helper()
	select {
	case r := <-s.reads:
		return r
	case <-time.After(time.Minute):
		t.Fatal("the client sent nothing more")
		return liveRead{}
	}
}

// TestLiveOutputReachesTheModelWhileTheCommandRuns: under runner.RunLive
// with Options.Live, ADK answers run_command at once as pending, and the
// command's first line reaches the model (a user turn) while the command
// runs: the command waits for a file that the test creates only on
// reading that line from the wire, so it prints "streamed" only if the
// line arrived before it ended. The toolset's text follows.
func TestLiveOutputReachesTheModelWhileTheCommandRuns(t *testing.T) {
	srv := newLiveServer(t, toolset.RunCommand, map[string]any{"command": "echo first; for i in $(seq 400); do [ -e go-on ] && break; sleep 0.05; done; [ -e go-on ] && echo streamed || echo not-streamed"})
	ws, stop := runLive(t, srv, policy.Rules{}, adk.Options{Live: true})
	defer stop()
	var order []string
	for len(order) == 0 || order[len(order)-1] != "result" {
		r := srv.next(t)
		switch {
		case r.toolResponse != nil:
			if !strings.Contains(r.toolResponse["status"].(string), "pending") {
				t.Errorf("tool response %v, want pending", r.toolResponse)
			}
			order = append(order, "pending")
		case strings.Contains(r.text, "still running"):
			if len(order) == 0 || order[len(order)-1] != "chunk" {
				if !strings.HasPrefix(r.text, "Function run_command returned: [stdout so far, still running]\nfirst\n") {
					t.Errorf("first live chunk %q", r.text)
				}
				order = append(order, "chunk")
			}
			os.WriteFile(filepath.Join(ws, "go-on"), nil, 0o644)
		case strings.HasPrefix(r.text, "Function run_command returned: "):
			if want := "Function run_command returned: [stdout]\nfirst\nstreamed\n"; r.text != want {
				t.Errorf("result %q, want %q", r.text, want)
			}
			order = append(order, "result")
		}
	}
	if got := strings.Join(order, ","); got != "pending,chunk,result" {
		t.Errorf("the model read %s, want pending,chunk,result", got)
	}
}

// TestLiveRefusesWhatThePolicyAsks: live mode has no confirmation round
// trip, so a command the policy asks about is refused with the policy's
// reason and never runs.
func TestLiveRefusesWhatThePolicyAsks(t *testing.T) {
	srv := newLiveServer(t, toolset.RunCommand, map[string]any{"command": "touch made.txt"})
	ws, stop := runLive(t, srv, policy.Rules{Approval: true}, adk.Options{Live: true})
	defer stop()
	for {
		r := srv.next(t)
		if strings.HasPrefix(r.text, "Function run_command returned: ") {
			if !strings.Contains(r.text, "no one is available to approve") || !strings.Contains(r.text, "Command 'touch' is not on the list of read-only commands") {
				t.Errorf("the model read %q, want the refusal with the policy's reason", r.text)
			}
			break
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil {
		t.Error("the command ran without approval")
	}
}

// TestLiveStopStreaming: the model's stop_streaming call (ADK's own) cancels
// a streaming run_command, and the command's process group is stopped.
func TestLiveStopStreaming(t *testing.T) {
	srv := newLiveServer(t, toolset.RunCommand, map[string]any{"command": "echo $$ > pid; echo first; exec sleep 60"})
	ws, stop := runLive(t, srv, policy.Rules{}, adk.Options{Live: true})
	defer stop()
	for {
		r := srv.next(t)
		if strings.Contains(r.text, "still running") {
			break
		}
	}
	srv.sends <- `{"toolCall":{"functionCalls":[{"id":"call-2","name":"stop_streaming","args":{"function_name":"run_command"}}]}}`
	for {
		r := srv.next(t)
		if st, _ := r.toolResponse["status"].(string); strings.Contains(st, "Successfully stopped") {
			break
		}
	}
	b, err := os.ReadFile(filepath.Join(ws, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command still runs after stop_streaming")
		}
	}
}

// TestLiveLimit: a call sends at most LiveLimit bytes of output while it
// runs, then says the live output stopped; the toolset's text follows.
func TestLiveLimit(t *testing.T) {
	srv := newLiveServer(t, toolset.RunCommand, map[string]any{"command": "head -c 100000 /dev/zero | tr '\\0' x; sleep 0.2; echo end"})
	_, stop := runLive(t, srv, policy.Rules{}, adk.Options{Live: true})
	defer stop()
	live, notices := 0, 0
	for {
		r := srv.next(t)
		if !strings.HasPrefix(r.text, "Function run_command returned: ") {
			continue
		}
		if !strings.Contains(r.text, "still running") && !strings.Contains(r.text, "live output stopped") {
			if !strings.Contains(r.text, "end") {
				t.Errorf("result %q", r.text)
			}
			break
		}
		live += strings.Count(r.text, "x")
		notices += strings.Count(r.text, "live output stopped after")
	}
	if live != adk.LiveLimit || notices != 1 {
		t.Errorf("%d bytes of live output (want %d), %d notices (want 1)", live, adk.LiveLimit, notices)
	}
}
