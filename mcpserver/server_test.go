package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/policy"
)

var testMark = leaktest.Mark("SCTEST_MCP_MARK")

func TestMain(m *testing.M) {
	if os.Getenv("SCTEST_STDIO_SERVER") != "" {
		serveStdio()
		return
	}
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// serveStdio makes the test binary an MCP server on stdio, for the stdio
// transport test.
func serveStdio() {
	env := markEnv()
	if m := os.Getenv("SCTEST_PARENT_MARK"); m != "" {
		env = leaktest.Env(m) // the test that started us looks for it
	}
	sh, err := shellcap.New(shellcap.Options{Workspace: os.Getenv("SCTEST_WORKSPACE"), Env: env})
	if err != nil {
		panic(err)
	}
	defer sh.Close()
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh})
	if err != nil {
		panic(err)
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		os.Stderr.WriteString(err.Error())
	}
}

func markEnv() map[string]string { return leaktest.Env(testMark) }

// marked lists live processes carrying testMark.
func marked(wait time.Duration) []int { return leaktest.Processes(testMark, wait) }

// connect serves opts over in-memory transports and returns a client
// session closed when the test ends.
func connect(t *testing.T, opts shellcap.Options, copts *mcp.ClientOptions) (*mcp.ClientSession, *mcpserver.Server) {
	t.Helper()
	return connectWith(t, opts, copts, nil)
}

// connectWith is connect with server options: with jobs set, the server
// offers the job tools from a Manager on the same Shell.
func connectWith(t *testing.T, opts shellcap.Options, copts *mcp.ClientOptions, sopts *mcpserver.Options) (*mcp.ClientSession, *mcpserver.Server) {
	t.Helper()
	_, srv := newSharedServer(t, opts, sopts)
	return clientOn(t, srv, copts, nil), srv
}

// newSharedServer builds a server that several clients may connect to.
func newSharedServer(t *testing.T, opts shellcap.Options, sopts *mcpserver.Options) (*shellcap.Shell, *mcpserver.Server) {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	opts.Env = markEnv()
	if opts.Approve == nil {
		opts.Approve = mcpserver.ElicitApprover
	}
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	so := mcpserver.Options{}
	if sopts != nil {
		so = *sopts
	}
	so.Shell = sh
	if sopts != nil && sopts.Jobs == nil {
		m, err := jobs.New(sh, jobs.Options{KillGrace: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			// Stop whatever a failed test left running, then close.
			if list, err := m.List(context.Background()); err == nil {
				for _, j := range list.Jobs {
					m.Stop(context.Background(), jobs.StopRequest{ID: j.ID})
				}
			}
			m.Close()
		})
		so.Jobs = m
	}
	srv, err := mcpserver.New(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return sh, srv
}

// clientOn connects a new client to srv over in-memory transports.
func clientOn(t *testing.T, srv *mcpserver.Server, copts *mcp.ClientOptions, sessOpts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts)
	cs, err := client.Connect(ctx, ct, sessOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) {
	cs, srv := connect(t, shellcap.Options{}, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.Annotations == nil {
			t.Errorf("tool %s lacks a description, schema or annotations", tool.Name)
		}
	}
	offered := srv.Tools()
	slices.Sort(names)
	slices.Sort(offered)
	if !slices.Equal(names, offered) || !slices.Contains(names, mcpserver.RunCommand) {
		t.Fatalf("tools = %v, server says %v", names, srv.Tools())
	}
}

func TestRunCommand(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{}, nil)
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "echo out; echo err >&2; exit 3"})
	if got, want := text(res), "[stdout]\nout\n\n[stderr]\nerr\n\n[exit code: 3]"; got != want || res.IsError {
		t.Fatalf("text %q isError %v, want %q", got, res.IsError, want)
	}
	data, _ := json.Marshal(res.StructuredContent)
	var structured struct {
		ExitCode int    `json:"exit_code"`
		Stdout   string `json:"stdout"`
	}
	if err := json.Unmarshal(data, &structured); err != nil || structured.ExitCode != 3 || structured.Stdout != "out\n" {
		t.Fatalf("structured content %s (%v)", data, err)
	}

	res = call(t, cs, mcpserver.RunCommand, map[string]any{"command": "sleep 30", "timeout_seconds": 0.3})
	if got := text(res); got != "[Command timed out after 0.3s]" {
		t.Fatalf("timeout text %q", got)
	}
	for _, bad := range []map[string]any{{}, {"command": "true", "timeout_seconds": -1}, {"command": "true", "extra": 1}} {
		if res := call(t, cs, mcpserver.RunCommand, bad); !res.IsError {
			t.Errorf("arguments %v were accepted: %s", bad, text(res))
		}
	}
}

func TestDenialIsToolError(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{}, nil)
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "ls; rm -rf /"})
	if !res.IsError || text(res) != "Command 'rm' is denied." {
		t.Fatalf("isError %v text %q", res.IsError, text(res))
	}
}

func TestProgressNotifications(t *testing.T) {
	var mu sync.Mutex
	var messages []string
	cs, _ := connect(t, shellcap.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			messages = append(messages, req.Params.Message)
			mu.Unlock()
		},
	})
	params := &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{"command": "for i in 1 2 3; do echo line$i; sleep 0.05; done"}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(t.Context(), params)
	if err != nil {
		t.Fatal(err)
	}
	if text(res) != "[stdout]\nline1\nline2\nline3\n" {
		t.Fatalf("text %q", text(res))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(messages, "")
		mu.Unlock()
		if got == "line1\nline2\nline3\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress messages %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCancellationStopsTheCommand(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{KillGrace: 200 * time.Millisecond}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{"command": "sleep 60 & sleep 60"}})
		done <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(marked(0)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("CallTool after cancel: %v", err)
	}
	if left := marked(5 * time.Second); len(left) > 0 {
		t.Fatalf("cancelled call left processes: %v", left)
	}
}

func TestElicitationForAsk(t *testing.T) {
	rules := policy.Rules{Approval: true}
	var asked []string
	var mu sync.Mutex
	answer := "accept"
	cs, _ := connect(t, shellcap.Options{Policy: rules}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: answer, Content: map[string]any{"reason": "use make test"}}, nil
		},
	})
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "touch approved"})
	if res.IsError || len(asked) != 1 || !strings.Contains(asked[0], "touch approved") {
		t.Fatalf("approved call: isError %v text %q asked %q", res.IsError, text(res), asked)
	}
	mu.Lock()
	answer = "decline"
	mu.Unlock()
	res = call(t, cs, mcpserver.RunCommand, map[string]any{"command": "touch declined"})
	if !res.IsError || text(res) != "The user did not approve this command. Reason: use make test" {
		t.Fatalf("declined call: isError %v text %q", res.IsError, text(res))
	}
}

func TestAskWithoutElicitationIsRefused(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{Policy: policy.Rules{Approval: true}}, nil)
	res := call(t, cs, mcpserver.RunCommand, map[string]any{"command": "touch x"})
	if !res.IsError || !strings.Contains(text(res), "elicitation") {
		t.Fatalf("isError %v text %q", res.IsError, text(res))
	}
}

func TestReadOnlyWorkspaceOffersNoTools(t *testing.T) {
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh})
	if err != nil || len(srv.Tools()) != 0 {
		t.Fatalf("tools %v err %v", srv.Tools(), err)
	}
}

func TestUnknownTool(t *testing.T) {
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if _, err := mcpserver.New(mcpserver.Options{Shell: sh, Tools: []string{"format_disk"}}); !errors.Is(err, mcpserver.ErrUnknownTool) {
		t.Fatalf("New with an unknown tool: %v", err)
	}
}

func TestEnvironmentSnapshot(t *testing.T) {
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Env: markEnv()})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	snap, err := envprobe.Probe(t.Context(), sh, envprobe.Options{Tools: []string{"bash", "no-such-tool-here"}})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh, Environment: snap})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	instr := cs.InitializeResult().Instructions
	if !strings.Contains(instr, "Commands run in this environment:") || !strings.Contains(instr, "bash") || !strings.Contains(instr, "no-such-tool-here") {
		t.Fatalf("instructions: %q", instr)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: mcpserver.EnvironmentURI})
	if err != nil || len(res.Contents) != 2 || !strings.Contains(res.Contents[0].Text, `"Workdir"`) && !strings.Contains(res.Contents[0].Text, `"workdir"`) {
		t.Fatalf("resource: %+v %v", res, err)
	}
}

// TestProgressStrictlyIncreases: with output arriving faster than a slow
// client takes notifications (chunks merge and some are dropped), every
// progress value is above the one before, and none exceeds the output.
func TestProgressStrictlyIncreases(t *testing.T) {
	var mu sync.Mutex
	var values []float64
	cs, _ := connect(t, shellcap.Options{}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			values = append(values, req.Params.Progress)
			mu.Unlock()
		},
	})
	const size = 2 << 20
	params := &mcp.CallToolParams{Name: mcpserver.RunCommand, Arguments: map[string]any{
		"command": "for i in $(seq 8); do head -c 131072 /dev/zero | tr '\\0' o; head -c 131072 /dev/zero | tr '\\0' e >&2; done"}}
	params.SetProgressToken("tok-2")
	if _, err := cs.CallTool(t.Context(), params); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(values) < 2 {
		t.Fatalf("only %d progress notifications", len(values))
	}
	for i := 1; i < len(values); i++ {
		if values[i] <= values[i-1] {
			t.Fatalf("progress %v then %v (notification %d of %d)", values[i-1], values[i], i, len(values))
		}
	}
	if last := values[len(values)-1]; last > size {
		t.Fatalf("progress %v beyond the %d bytes of output", last, size)
	}
}
