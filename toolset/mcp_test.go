package toolset_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/toolset"
)

func containsText(s, sub string) bool { return strings.Contains(s, sub) }

// mcpPair serves a toolset over MCP and returns a connected client and
// the server, whose Toolset the same calls can go to directly.
func mcpPair(t *testing.T) (*mcp.ClientSession, *mcpserver.Server) {
	t.Helper()
	sh, err := shellcap.New(shellcap.Options{Workspace: t.TempDir(), Env: leaktest.Env(testMark), Approve: mcpserver.ElicitApprover})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	m, err := jobs.New(sh, jobs.Options{KillGrace: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if list, err := m.List(context.Background()); err == nil {
			for _, j := range list.Jobs {
				m.Stop(context.Background(), jobs.StopRequest{ID: j.ID})
			}
		}
		m.Close()
	})
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh, Jobs: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, srv
}

func mcpCall(t *testing.T, cs *mcp.ClientSession, name, args string) *mcp.CallToolResult {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: v})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func mcpText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// varying replaces what differs from one run of the same call to the next:
// job IDs, process IDs, file names made of them, ages and durations.
var varying = regexp.MustCompile(`[0-9a-f]{32}|\d+`)

// TestSameTextAsMCP: a call with valid arguments gives the model the
// same text, and the same isError, straight through the toolset as
// through the MCP server, for every tool.
func TestSameTextAsMCP(t *testing.T) {
	cs, srv := mcpPair(t)
	conv := srv.Toolset().Conversation("direct")
	defer conv.Close()
	calls := []struct{ tool, args string }{
		{toolset.RunCommand, `{"command":"echo ok"}`},
		{toolset.RunCommand, `{"command":"echo oops >&2; exit 3"}`},
		{toolset.RunCommand, `{"command":"rm -rf /"}`},
		{toolset.RunCommand, `{"command":"sleep 1","timeout_seconds":900}`},
		{toolset.StartCommand, `{"command":"sleep 30"}`},
		{toolset.CheckCommand, `{"command_id":"nosuchjob"}`},
		{toolset.WaitCommand, `{"command_id":"nosuchjob","timeout_seconds":0.1}`},
		{toolset.SendInput, `{"command_id":"nosuchjob","text":"x"}`},
		{toolset.StopCommand, `{"command_id":"nosuchjob"}`},
		{toolset.ListCommands, `{}`},
		{toolset.ShellTool, `{"command":"echo in shell"}`},
		{toolset.BashTool, `{"command":"echo in bash"}`},
		{toolset.BashTool, `{"restart":true}`},
	}
	for _, c := range calls {
		want := mcpCall(t, cs, c.tool, c.args)
		got := call(t, conv, c.tool, c.args, toolset.Hooks{})
		w, g := varying.ReplaceAllString(mcpText(want), "N"), varying.ReplaceAllString(got.ModelText(), "N")
		if g != w || got.IsError != want.IsError {
			t.Errorf("%s %s:\ntoolset (isError %v):\n%s\nMCP (isError %v):\n%s", c.tool, c.args, got.IsError, g, want.IsError, w)
		}
	}
}

// TestInvalidArguments: a bad argument gets the one precise text, the
// same through the toolset and through MCP, for every tool.
func TestInvalidArguments(t *testing.T) {
	cs, srv := mcpPair(t)
	conv := srv.Toolset().Conversation("direct")
	defer conv.Close()
	type bad struct{ args, want string }
	unknown := func(tool string) bad {
		return bad{`{"bogus":1}`, "Invalid arguments for " + tool + `: unknown argument "bogus".`}
	}
	cases := map[string][]bad{
		toolset.RunCommand: {unknown(toolset.RunCommand),
			{`{"command":5}`, "Invalid arguments for run_command: argument command must be a string, not a JSON number."},
			{`{}`, `Invalid arguments for run_command: missing required argument "command".`},
			{`{"command":"true","timeout_seconds":"x"}`, `Invalid arguments for run_command: a timeout must be a number of seconds, not "x".`}},
		toolset.StartCommand: {unknown(toolset.StartCommand),
			{`{"command":"true","stdin":"yes"}`, "Invalid arguments for start_command: argument stdin must be a boolean, not a JSON string."}},
		toolset.CheckCommand: {unknown(toolset.CheckCommand),
			{`{"command_id":1}`, "Invalid arguments for check_command: argument command_id must be a string, not a JSON number."}},
		toolset.WaitCommand: {unknown(toolset.WaitCommand),
			{`{"command_id":"x"}`, `Invalid arguments for wait_command: missing required argument "timeout_seconds".`}},
		toolset.SendInput: {unknown(toolset.SendInput),
			{`{"command_id":"x"}`, `Invalid arguments for send_input: missing required argument "text".`}},
		toolset.StopCommand:  {unknown(toolset.StopCommand), {`{}`, `Invalid arguments for stop_command: missing required argument "command_id".`}},
		toolset.ListCommands: {unknown(toolset.ListCommands)},
		toolset.ShellTool: {unknown(toolset.ShellTool),
			{`{"command":"true","mode":"sideways"}`, `Invalid arguments for shell: mode must be "foreground" or "background" (got "sideways").`}},
		// Not an object, not JSON: the same form, no Go types.
		toolset.ListCommands + " ": {{`"ls"`, "Invalid arguments for list_commands: the arguments must be a JSON object, not a JSON string."}},
		toolset.BashTool: {unknown(toolset.BashTool),
			{`{}`, `Provide "command", or "restart": true.`}},
	}
	for _, name := range toolset.AllTools {
		if len(cases[name]) == 0 {
			t.Errorf("%s: no invalid-argument case", name)
		}
		for _, c := range cases[name] {
			got := call(t, conv, name, c.args, toolset.Hooks{})
			want := mcpCall(t, cs, name, c.args)
			if !got.IsError || !strings.HasPrefix(got.Text, c.want) {
				t.Errorf("%s %s: isError %v, text %q, want it to start with %q", name, c.args, got.IsError, got.Text, c.want)
			}
			if got.ModelText() != mcpText(want) || !want.IsError {
				t.Errorf("%s %s: toolset says %q, MCP says %q (isError %v)", name, c.args, got.ModelText(), mcpText(want), want.IsError)
			}
		}
	}
}

// TestSameDefinitionsAsMCP: the MCP server offers each tool exactly as
// the toolset defines it: name, title, description, schemas, hints.
func TestSameDefinitionsAsMCP(t *testing.T) {
	cs, srv := mcpPair(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := srv.Toolset().Tools()
	if len(list.Tools) != len(tools) {
		t.Fatalf("MCP lists %d tools, the toolset has %d", len(list.Tools), len(tools))
	}
	asJSON := func(v any) string { data, _ := json.Marshal(v); return string(data) }
	offered := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		offered[tool.Name] = tool
	}
	for _, def := range tools {
		got := offered[def.Name]
		if got == nil {
			t.Errorf("%s: not offered over MCP", def.Name)
			continue
		}
		if got.Title != def.Title || got.Description != def.Description {
			t.Errorf("%s: MCP offers %q / %q", def.Name, got.Name, got.Title)
		}
		if asJSON(got.InputSchema) != asJSON(def.InputSchema) {
			t.Errorf("%s: input schema\nMCP:     %s\ntoolset: %s", def.Name, asJSON(got.InputSchema), asJSON(def.InputSchema))
		}
		if def.OutputSchema != nil && asJSON(got.OutputSchema) != asJSON(def.OutputSchema) || def.OutputSchema == nil && got.OutputSchema != nil {
			t.Errorf("%s: output schema differs", def.Name)
		}
		a := got.Annotations
		if a == nil || a.ReadOnlyHint != def.Annotations.ReadOnly || a.IdempotentHint != def.Annotations.Idempotent ||
			a.OpenWorldHint == nil || *a.OpenWorldHint != def.Annotations.OpenWorld ||
			!def.Annotations.ReadOnly && (a.DestructiveHint == nil || *a.DestructiveHint != def.Annotations.Destructive) {
			t.Errorf("%s: annotations %+v, defined %+v", def.Name, a, def.Annotations)
		}
	}
}
