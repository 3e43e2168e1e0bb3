package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/policy"
)

// httpServerWith serves a server with job tools over streamable HTTP.
func httpServerWith(t *testing.T, sopts mcpserver.Options, hopts mcpserver.HTTPOptions) (*httptest.Server, *mcpserver.Server) {
	t.Helper()
	return httpServerShell(t, shellcap.Options{}, sopts, hopts)
}

func httpServerShell(t *testing.T, opts shellcap.Options, sopts mcpserver.Options, hopts mcpserver.HTTPOptions) (*httptest.Server, *mcpserver.Server) {
	t.Helper()
	_, srv := newSharedServer(t, opts, &sopts)
	if hopts.Addr == "" {
		hopts.Addr = "127.0.0.1:0"
	}
	h, err := srv.HTTPHandler(hopts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts, srv
}

// httpClient connects a Go SDK client; version "" is the newest.
func httpClient(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPSessionsAreIsolated: many clients at once, each exporting its
// own variable in the bash tool, each read back only their own; each
// session lists only its own jobs, gets only its own notices, and can
// still reach another session's job by ID.
func TestHTTPSessionsAreIsolated(t *testing.T) {
	ts, _ := httpServerWith(t, mcpserver.Options{}, mcpserver.HTTPOptions{})
	const n = 20
	clients := make([]*mcp.ClientSession, n)
	for i := range clients {
		clients[i] = httpClient(t, ts.URL, legacy)
	}
	var wg sync.WaitGroup
	errs := make(chan string, n*3)
	for i, cs := range clients {
		wg.Go(func() {
			for round := range 3 {
				call(t, cs, "bash", map[string]any{"command": fmt.Sprintf("export MINE=client%d-%d", i, round)})
				got := text(call(t, cs, "bash", map[string]any{"command": "echo $MINE"}))
				if want := fmt.Sprintf("[stdout]\nclient%d-%d\n", i, round); got != want {
					errs <- fmt.Sprintf("client %d read %q, want %q", i, got, want)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	a, b := clients[0], clients[1]
	started := call(t, a, "start_command", map[string]any{"command": "echo from-a"})
	id, _ := started.StructuredContent.(map[string]any)["id"].(string)
	if id == "" {
		t.Fatalf("start_command: %q", text(started))
	}
	if got := text(call(t, b, "list_commands", nil)); strings.Contains(got, id) {
		t.Fatalf("session b lists a's job: %q", got)
	}
	// a lists its job; the job's finished notice comes with one of a's
	// results (whichever is next once it ended), never with b's.
	listed := call(t, a, "list_commands", nil)
	if !strings.Contains(text(listed), id) {
		t.Fatalf("session a does not list its job: %q", text(listed))
	}
	if res := call(t, b, "wait_command", map[string]any{"command_id": id, "timeout_seconds": 10}); res.IsError || !strings.Contains(text(res), "from-a") {
		t.Fatalf("b cannot reach a's job by ID: %q", text(res))
	}
	notice := func(res *mcp.CallToolResult) string {
		if len(res.Content) > 1 {
			return res.Content[1].(*mcp.TextContent).Text
		}
		return ""
	}
	got := notice(listed)
	for deadline := time.Now().Add(10 * time.Second); got == ""; time.Sleep(50 * time.Millisecond) {
		got = notice(call(t, a, "run_command", map[string]any{"command": "true"}))
		if got == "" && time.Now().After(deadline) {
			t.Fatal("session a never got the notice of its job")
		}
	}
	if !strings.Contains(got, id) {
		t.Fatalf("a's notice: %q", got)
	}
	for _, cs := range clients[1:] {
		if res := call(t, cs, "run_command", map[string]any{"command": "true"}); len(res.Content) > 1 {
			t.Fatalf("another session got a's notice: %q", res.Content[1].(*mcp.TextContent).Text)
		}
	}
}

// TestHTTPShareJobs: with ShareJobs, every session lists every job.
func TestHTTPShareJobs(t *testing.T) {
	ts, _ := httpServerWith(t, mcpserver.Options{ShareJobs: true}, mcpserver.HTTPOptions{})
	a, b := httpClient(t, ts.URL, legacy), httpClient(t, ts.URL, legacy)
	started := call(t, a, "start_command", map[string]any{"command": "sleep 30"})
	id := started.StructuredContent.(map[string]any)["id"].(string)
	if got := text(call(t, b, "list_commands", nil)); !strings.Contains(got, id) {
		t.Fatalf("shared jobs: b does not list a's job: %q", got)
	}
	call(t, b, "stop_command", map[string]any{"command_id": id})
}

// TestHTTPSessionCap: past MaxSessions a new session is refused with a
// clear error; closing one makes room; the sessions' shells end with them.
func TestHTTPSessionCap(t *testing.T) {
	ts, _ := httpServerWith(t, mcpserver.Options{}, mcpserver.HTTPOptions{MaxSessions: 2})
	a := httpClient(t, ts.URL, legacy)
	b := httpClient(t, ts.URL, legacy)
	call(t, a, "bash", map[string]any{"command": "true"})
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	_, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
	if err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Fatalf("third session: %v", err)
	}
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "Too many MCP sessions") || !strings.Contains(string(body), "at most 2") {
		t.Fatalf("refusal: %d %s", resp.StatusCode, body)
	}
	b.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: legacy})
		if err == nil {
			cs.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after closing a session: %v", err)
		}
	}
	if len(marked(0)) == 0 {
		t.Fatal("session a's bash shell is not running")
	}
	a.Close()
	if left := marked(5 * time.Second); len(left) > 0 {
		t.Fatalf("a closed session's bash shell still runs: %v", left)
	}
}

// TestHTTPModernProtocol: a client of 2026-07-28 is served (statelessly);
// the bash tool's session_id keeps its shell across requests; approvals
// round-trip through input requests.
func TestHTTPModernProtocol(t *testing.T) {
	ts, _ := httpServerWith(t, mcpserver.Options{}, mcpserver.HTTPOptions{})
	cs := httpClient(t, ts.URL, "")
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q", v)
	}
	if got := text(call(t, cs, "run_command", map[string]any{"command": "echo modern"})); got != "[stdout]\nmodern\n" {
		t.Fatalf("run_command: %q", got)
	}
	first := call(t, cs, "bash", map[string]any{"command": "export KEPT=yes"})
	handle, _ := first.StructuredContent.(map[string]any)["session_id"].(string)
	if handle == "" || !strings.Contains(text(first), handle) {
		t.Fatalf("no session_id for a stateless client: %q", text(first))
	}
	if got := text(call(t, cs, "bash", map[string]any{"command": "echo ${KEPT:-lost}", "session_id": handle})); !strings.HasPrefix(got, "[stdout]\nyes\n") {
		t.Fatalf("the shell named by session_id lost its state: %q", got)
	}
	if got := text(call(t, cs, "bash", map[string]any{"command": "echo ${KEPT:-fresh}"})); !strings.HasPrefix(got, "[stdout]\nfresh\n") {
		t.Fatalf("without session_id a stateless client got someone's shell: %q", got)
	}
	if res := call(t, cs, "bash", map[string]any{"command": "true", "session_id": "nope"}); !res.IsError || !strings.Contains(text(res), "Unknown session_id") {
		t.Fatalf("unknown session_id: %q", text(res))
	}
}

// TestHTTPModernApproval: a 2026-07-28 client over stateless HTTP answers
// the approval question by retrying; the command runs once approved, and
// a retry carrying a state the server did not issue is asked again.
func TestHTTPModernApproval(t *testing.T) {
	ws := t.TempDir()
	ts, _ := httpServerShell(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, mcpserver.Options{}, mcpserver.HTTPOptions{})
	asked := 0
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked++
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q", v)
	}
	res := call(t, cs, "run_command", map[string]any{"command": "touch approved"})
	if res.IsError || asked != 1 || !exists(filepath.Join(ws, "approved")) {
		t.Fatalf("approved over stateless HTTP: isError %v asked %d text %q", res.IsError, asked, text(res))
	}
	raw := mcp.NewClient(&mcp.Implementation{Name: "raw", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, errors.New("unused") },
	})
	rcs, err := raw.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rcs.Close()
	forged, err := rcs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "touch forged"},
		RequestState: "approve.0.0.x", InputResponses: accept()})
	if err != nil || !forged.NeedsInput() || exists(filepath.Join(ws, "forged")) {
		t.Fatalf("forged state over stateless HTTP: err %v needs input %v", err, forged != nil && forged.NeedsInput())
	}
}

// TestHTTPIdleSessionReleasesItsShell: the bash shell of a session closed
// for idleness ends with it.
func TestHTTPIdleSessionReleasesItsShell(t *testing.T) {
	ts, _ := httpServerWith(t, mcpserver.Options{}, mcpserver.HTTPOptions{SessionIdleTimeout: 300 * time.Millisecond})
	cs := httpClient(t, ts.URL, legacy)
	call(t, cs, "bash", map[string]any{"command": "true"})
	if len(marked(0)) == 0 {
		t.Fatal("no bash shell runs")
	}
	if left := marked(20 * time.Second); len(left) > 0 {
		t.Fatalf("the idle session's shell still runs: %v", left)
	}
}
