//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// legacyProtocol is an MCP revision whose HTTP clients get stateful
// sessions (one conversation each) and answer approvals by elicitation.
const legacyProtocol = "2025-11-25"

// frontDoor serves an MCP front door over HTTP on loopback for the
// workspaces, the first the default; it returns the endpoint.
func (e *env) frontDoor(workspaces ...WorkspaceRef) (string, *mcpserver.Server) {
	e.t.Helper()
	return serveFrontDoor(e.t, e.c, workspaces...)
}

func serveFrontDoor(tb testing.TB, c client.Client, workspaces ...WorkspaceRef) (string, *mcpserver.Server) {
	tb.Helper()
	fd, err := NewFrontDoor(c, FrontDoorOptions{Workspaces: workspaces})
	if err != nil {
		tb.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Remote: fd})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h, err := srv.HTTPHandler(mcpserver.HTTPOptions{Addr: ln.Addr().String()})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, ln, h); close(done) }()
	tb.Cleanup(func() { cancel(); <-done; srv.Close() })
	return "http://" + ln.Addr().String() + "/", srv
}

// withHeader adds a header to every request of a client.
type withHeader struct {
	name, value string
}

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient connects an MCP client (the Go SDK's) to endpoint, naming
// workspace in WorkspaceHeader unless it is empty; protocol empty is the
// client's latest.
func (e *env) mcpClient(endpoint, workspace, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	e.t.Helper()
	return connectMCP(e.t, endpoint, workspace, protocol, opts)
}

func connectMCP(tb testing.TB, endpoint, workspace, protocol string, opts *mcp.ClientOptions) *mcp.ClientSession {
	tb.Helper()
	hc := &http.Client{}
	if workspace != "" {
		hc.Transport = withHeader{WorkspaceHeader, workspace}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text content and error flag.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, *mcp.CallToolResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError, res
}

// localToolset is the toolset a worker of host builds for workspace ws,
// built here: what the model would read without Temporal.
func localToolset(t testing.TB, host, ws string) *toolset.Toolset {
	t.Helper()
	so := testWorkerOptions(host, ws, "", time.Second).Shell(ws)
	so.Workspace = ws
	ts, err := toolset.New(toolset.Options{Shell: newShell(t, so)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

// TestFrontDoorRoutes: two workers on two hosts, one front door serving a
// workspace on each: a client naming a workspace in WorkspaceHeader runs
// its commands on that workspace's host, a client naming none on the
// default's, a client naming another workspace is refused; the model text
// equals the local toolset's; the tools are the local toolset's.
func TestFrontDoorRoutes(t *testing.T) {
	e := newEnv(t)
	a := e.host("fd-a-"+sanitize(t.Name()), nil)
	b := e.host("fd-b-"+sanitize(t.Name()), nil)
	endpoint, _ := e.frontDoor(a, b)

	for _, tc := range []struct {
		name, header string
		want         WorkspaceRef
	}{{"default", "", a}, {"header", b.String(), b}, {"header naming the default", a.String(), a}} {
		t.Run(tc.name, func(t *testing.T) {
			cs := e.mcpClient(endpoint, tc.header, "", nil)
			text, isErr, _ := callText(t, cs, toolset.RunCommand, map[string]any{"command": `echo "$SHELLCAP_TEST_HOST"; pwd`})
			if isErr || !strings.Contains(text, tc.want.Host+"\n") || !strings.Contains(text, tc.want.Path) {
				t.Fatalf("ran on the wrong host or workspace, want %s: %q", tc.want, text)
			}
		})
	}

	cs := e.mcpClient(endpoint, b.String(), "", nil)
	local := localToolset(t, b.Host, b.Path)
	for _, command := range []string{"printf 'one\\ntwo\\n'; echo oops >&2; exit 3", "seq 1 200000", "exit 0"} {
		args := map[string]any{"command": command}
		got, gotErr, _ := callText(t, cs, toolset.RunCommand, args)
		raw, _ := json.Marshal(args)
		want, err := local.Call(context.Background(), nil, toolset.RunCommand, raw, toolset.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		// Saved full output lands in a file named by the result; the
		// names differ between the two runs.
		if normalize(got) != normalize(want.ModelText()) || gotErr != want.IsError {
			t.Errorf("%q through the front door:\n%s\nlocally:\n%s", command, got, want.ModelText())
		}
	}

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	want := slices.Sorted(slices.Values(toolset.AllTools))
	if slices.Sort(names); !slices.Equal(names, want) {
		t.Errorf("the front door offers %v, want %v", names, want)
	}

	stranger := e.mcpClient(endpoint, b.Host+":/elsewhere", "", nil)
	text, isErr, _ := callText(t, stranger, toolset.RunCommand, map[string]any{"command": "touch /tmp/should-not-run"})
	if !isErr || !strings.Contains(text, "not served") || !strings.Contains(text, a.String()) {
		t.Errorf("a workspace the front door does not serve: %q (error %v)", text, isErr)
	}
	orphanDoor, _ := e.frontDoor(WorkspaceRef{Host: "nobody-" + sanitize(t.Name()), Path: "/srv/none"})
	nobody := e.mcpClient(orphanDoor, "", "", nil)
	if text, isErr, _ := callText(t, nobody, toolset.RunCommand, map[string]any{"command": "true"}); !isErr || !strings.Contains(text, "no worker serves the host nobody-") {
		t.Errorf("a host no worker serves: %q (error %v)", text, isErr)
	}
	malformed := e.mcpClient(endpoint, "no-path", "", nil)
	if text, isErr, _ := callText(t, malformed, toolset.RunCommand, map[string]any{"command": "true"}); !isErr || !strings.Contains(text, WorkspaceHeader) {
		t.Errorf("a malformed %s: %q (error %v)", WorkspaceHeader, text, isErr)
	}
}

// normalize replaces the names of saved-output files, which differ
// between two runs of the same command.
func normalize(s string) string {
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.Contains(f, "shellcap-output") || strings.HasPrefix(f, os.TempDir()+"/") {
			fields[i] = "FILE"
		}
	}
	return strings.Join(fields, " ")
}

// TestFrontDoorStickyDirAfterRestart: a client's bash shell moves to sub;
// its worker stops and a new one starts; the next bash command runs in
// sub, as the session workflow kept it.
func TestFrontDoorStickyDirAfterRestart(t *testing.T) {
	e := newEnv(t)
	host := "fd-sticky-" + sanitize(t.Name())
	ws := t.TempDir()
	ref := WorkspaceRef{Host: host, Path: ws}
	o := testWorkerOptions(host, ws, e.keyDir, 200*time.Millisecond)
	w1 := e.startWorker(o)
	endpoint, _ := e.frontDoor(ref)
	cs := e.mcpClient(endpoint, "", legacyProtocol, nil) // a stateful session: one conversation
	if text, isErr, _ := callText(t, cs, toolset.BashTool, map[string]any{"command": "mkdir -p sub && cd sub"}); isErr {
		t.Fatalf("cd sub: %s", text)
	}
	w1.Stop()
	w2 := e.startWorker(o)
	defer w2.Stop()
	text, isErr, _ := callText(t, cs, toolset.BashTool, map[string]any{"command": "pwd"})
	if isErr || !strings.Contains(text, filepath.Join(ws, "sub")+"\n") {
		t.Fatalf("pwd on the new worker: %q, want %s", text, filepath.Join(ws, "sub"))
	}
	st, err := SessionStatus(context.Background(), e.c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Cwd) != 1 {
		t.Fatalf("the session keeps %d directories, want 1: %+v", len(st.Cwd), st)
	}
	for _, dir := range st.Cwd {
		if dir != filepath.Join(ws, "sub") {
			t.Errorf("the sticky directory in the session state: %q", dir)
		}
	}
}

// TestFrontDoorApproval: a command the workers' policy asks about is
// asked of the MCP client: approved, it runs; declined, it is refused
// with the user's reason and nothing runs. Both the input-request clients
// (the SDK's latest protocol) and the elicitation clients (older ones).
func TestFrontDoorApproval(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-approve-"+sanitize(t.Name()), func(o *WorkerOptions) {
		base := o.Shell
		o.Shell = func(ws string) shellcap.Options {
			so := base(ws)
			so.Policy = policy.Rules{Approval: true}
			return so
		}
	})
	endpoint, _ := e.frontDoor(ref)
	for _, protocol := range []string{"", legacyProtocol} {
		for _, approve := range []bool{true, false} {
			name := map[bool]string{true: "approved", false: "declined"}[approve]
			t.Run(protocol+name, func(t *testing.T) {
				asked := 0
				cs := e.mcpClient(endpoint, "", protocol, &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked++
						if approve {
							return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"remember": false}}, nil
						}
						return &mcp.ElicitResult{Action: "decline", Content: map[string]any{"reason": "not on a Friday"}}, nil
					},
				})
				file := filepath.Join(ref.Path, "made-"+sanitize(t.Name()))
				text, isErr, _ := callText(t, cs, toolset.RunCommand, map[string]any{"command": "touch " + file})
				_, statErr := os.Stat(file)
				if asked != 1 {
					t.Errorf("the client was asked %d times, want once", asked)
				}
				if approve && (isErr || statErr != nil) {
					t.Errorf("approved: %q (error %v), file: %v", text, isErr, statErr)
				}
				if !approve && (!isErr || statErr == nil || !strings.Contains(text, "not on a Friday")) {
					t.Errorf("declined: %q (error %v), file made: %v", text, isErr, statErr == nil)
				}
			})
		}
	}
}

// TestFrontDoorJobTable: a start_command through the front door shows in
// the session workflow's job table (query), running; after stop_command
// it is stopped; the job ran on the workspace's host.
func TestFrontDoorJobTable(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-jobs-"+sanitize(t.Name()), nil)
	endpoint, _ := e.frontDoor(ref)
	cs := e.mcpClient(endpoint, "", legacyProtocol, nil)
	command := "echo on $SHELLCAP_TEST_HOST; sleep 60"
	_, isErr, res := callText(t, cs, toolset.StartCommand, map[string]any{"command": command})
	if isErr {
		t.Fatalf("start_command: %+v", res)
	}
	var started struct {
		ID string `json:"id"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &started); err != nil || started.ID == "" {
		t.Fatalf("start_command's structured result: %s", raw)
	}
	st, err := SessionStatus(context.Background(), e.c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Jobs) != 1 || st.Jobs[0].ID != started.ID || st.Jobs[0].Command != command || st.Jobs[0].Status != "running" || st.Jobs[0].Conversation == "" {
		t.Fatalf("the job table after start_command: %+v", st.Jobs)
	}
	text, isErr, _ := callText(t, cs, toolset.WaitCommand, map[string]any{"command_id": started.ID, "timeout_seconds": 1})
	if isErr || !strings.Contains(text, "on "+ref.Host) {
		t.Errorf("the job's output: %q", text)
	}
	if text, isErr, _ := callText(t, cs, toolset.StopCommand, map[string]any{"command_id": started.ID}); isErr {
		t.Fatalf("stop_command: %s", text)
	}
	st, err = SessionStatus(context.Background(), e.c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Jobs) != 1 || st.Jobs[0].Status != "stopped" || st.Jobs[0].ExitCode == nil {
		t.Errorf("the job table after stop_command: %+v", st.Jobs)
	}
	if st.Calls != 3 {
		t.Errorf("the session counted %d calls, want 3", st.Calls)
	}
	replaySession(t, e.c, ref)
}

// TestFrontDoorCloseEndsShell: when an MCP session ends, its bash shell on
// the worker ends too and the session workflow forgets its directory.
func TestFrontDoorCloseEndsShell(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-close-"+sanitize(t.Name()), nil)
	endpoint, _ := e.frontDoor(ref)
	cs := e.mcpClient(endpoint, "", legacyProtocol, nil)
	text, isErr, _ := callText(t, cs, toolset.BashTool, map[string]any{"command": "mkdir -p d && cd d && echo $$"})
	if isErr {
		t.Fatal(text)
	}
	pid := 0
	for _, f := range strings.Fields(text) {
		if n, err := strconv.Atoi(f); err == nil {
			pid = n
		}
	}
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		t.Fatalf("no live bash PID in %q", text)
	}
	cs.Close()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := SessionStatus(context.Background(), e.c, ref)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Cwd) == 0 && syscall.Kill(pid, 0) != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the MCP session ended: directories %v, bash %d alive: %v", st.Cwd, pid, syscall.Kill(pid, 0) == nil)
		}
	}
}
