package eino_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// TestAgentToolResults: tool calls go through Eino's ChatModelAgent and
// ToolsNode, and the model receives shellcap's texts: output and exit
// code, a denial with the policy's reason, the one text for invalid
// arguments.
func TestAgentToolResults(t *testing.T) {
	ts := newToolset(t, shellcap.Options{Policy: policy.Rules{DenyPatterns: []string{`^curl `}}})
	conv := ts.Conversation("results")
	defer conv.Close()
	a := newAgent(t, agentConfig{tools: bind(t, ts, conv)})
	o := a.turn("1", "run them",
		callTools(
			toolset.RunCommand, `{"command":"echo out; echo err >&2; exit 3"}`,
			toolset.RunCommand, `{"command":"curl http://example.com"}`,
			toolset.RunCommand, `{"cmd":"ls"}`,
			toolset.ShellTool, `{"command":"echo via-shell"}`,
		),
		say("done"))
	if o.text != "done" || len(o.interrupts) != 0 {
		t.Fatalf("turn ended %+v", o)
	}
	got := a.model.toolResults()
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"call-0-run_command", []string{"[stdout]\nout\n", "[stderr]\nerr\n", "[exit code: 3]"}},
		{"call-1-run_command", []string{"Command 'curl http://example.com' is denied by the pattern '^curl '."}},
		{"call-2-run_command", []string{`Invalid arguments for run_command: unknown argument "cmd".`}},
		{"call-3-shell", []string{"via-shell"}},
	} {
		mustContain(t, tc.id, got[tc.id], tc.want...)
	}
}

// TestAgentApproval: a command the policy asks about interrupts the
// agent with the question and runs nothing; resumed with the user's
// answer, it runs (approved) or the model is told the user's reason
// (declined). A resume without an answer refuses the command.
func TestAgentApproval(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  any
		created bool
		want    string
	}{
		{"approved", toolset.Answer{Approved: true}, true, "(no output)"},
		{"approved-pointer", &toolset.Answer{Approved: true}, true, "(no output)"},
		{"declined", toolset.Answer{Reason: "not in this repository"}, false, "not in this repository"},
		{"no-answer", nil, false, "resumed without an answer"},
		{"wrong-type", "yes", false, "resumed with string, not a toolset.Answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			ts := newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
			conv := ts.Conversation("approval")
			defer conv.Close()
			a := newAgent(t, agentConfig{tools: bind(t, ts, conv)})
			o := a.turn("cp", "make a file", callTools(toolset.RunCommand, `{"command":"touch made.txt"}`))
			if len(o.interrupts) != 1 {
				t.Fatalf("want one interrupt, got %+v", o)
			}
			q, ok := o.interrupts[0].Info.(toolset.Question)
			if !ok || q.Command != "touch made.txt" || q.Tool != toolset.RunCommand || !strings.Contains(q.Reason, "touch") {
				t.Fatalf("interrupt info %#v", o.interrupts[0].Info)
			}
			if exists(ws, "made.txt") {
				t.Fatal("the command ran before it was approved")
			}
			o = a.resume("cp", map[string]any{o.interrupts[0].ID: tc.answer}, say("done"))
			if len(o.interrupts) != 0 || o.text != "done" {
				t.Fatalf("resumed turn ended %+v", o)
			}
			mustContain(t, "tool result", a.model.lastToolResult(t), tc.want)
			if exists(ws, "made.txt") != tc.created {
				t.Errorf("file created %v, want %v", !tc.created, tc.created)
			}
		})
	}
}

// TestAgentApprovalSiblings: two commands asked about in one step are two
// interrupts; resuming one leaves the other pending, and each answer
// decides only its own command.
func TestAgentApprovalSiblings(t *testing.T) {
	ws := t.TempDir()
	ts := newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
	conv := ts.Conversation("siblings")
	defer conv.Close()
	a := newAgent(t, agentConfig{tools: bind(t, ts, conv)})
	o := a.turn("cp", "make two files", callTools(
		toolset.RunCommand, `{"command":"touch one.txt"}`,
		toolset.RunCommand, `{"command":"touch two.txt"}`))
	if len(o.interrupts) != 2 {
		t.Fatalf("want two interrupts, got %+v", o)
	}
	ids := map[string]string{}
	for _, ic := range o.interrupts {
		ids[ic.Info.(toolset.Question).Command] = ic.ID
	}
	o = a.resume("cp", map[string]any{ids["touch one.txt"]: toolset.Answer{Approved: true}})
	if len(o.interrupts) != 1 || o.interrupts[0].Info.(toolset.Question).Command != "touch two.txt" {
		t.Fatalf("after the first answer: %+v", o)
	}
	if !exists(ws, "one.txt") || exists(ws, "two.txt") {
		t.Fatal("the first answer did not decide exactly its command")
	}
	o = a.resume("cp", map[string]any{o.interrupts[0].ID: toolset.Answer{Reason: "one is enough"}}, say("done"))
	if o.text != "done" {
		t.Fatalf("resumed turn ended %+v", o)
	}
	got := a.model.toolResults()
	mustContain(t, "first result", got["call-0-run_command"], "(no output)")
	mustContain(t, "second result", got["call-1-run_command"], "one is enough")
	if exists(ws, "two.txt") {
		t.Error("the declined command ran")
	}
}

// TestAgentJobAcrossTurns: a job started in one turn is checked and
// stopped in later turns, by the ID the model read.
func TestAgentJobAcrossTurns(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	conv := ts.Conversation("jobs")
	defer conv.Close()
	a := newAgent(t, agentConfig{tools: bind(t, ts, conv)})
	a.turn("1", "start it", callTools(toolset.StartCommand, `{"command":"echo job-started; sleep 60"}`), say("started"))
	started := a.model.lastToolResult(t)
	m := regexp.MustCompile(`ID: ([0-9a-f]+)`).FindStringSubmatch(started)
	if m == nil {
		t.Fatalf("no job ID in %q", started)
	}
	id := m[1]

	// wait_command gives up while the job runs; check_command sees it
	// running.
	a.turn("2", "wait a little", callTools(toolset.WaitCommand, `{"command_id":"`+id+`","timeout_seconds":0.5}`), say("waited"))
	mustContain(t, "wait_command", a.model.lastToolResult(t), "[status: running]")
	a.turn("3", "check it", callTools(toolset.CheckCommand, `{"command_id":"`+id+`"}`), say("checked"))
	mustContain(t, "check_command", a.model.lastToolResult(t), "[status: running]")

	// stop_command reports the stopped job's output; the job is then gone.
	a.turn("4", "stop it", callTools(toolset.StopCommand, `{"command_id":"`+id+`"}`), say("stopped"))
	mustContain(t, "stop_command", a.model.lastToolResult(t), "job-started", "[stopped]", "[exit code: 143]")
	a.turn("5", "check it", callTools(toolset.CheckCommand, `{"command_id":"`+id+`"}`), say("checked"))
	mustContain(t, "check_command after the stop", a.model.lastToolResult(t), "unknown command ID '"+id+"'")
}

// TestAgentBashSession: the bash tool's session (directory, variables)
// carries across turns of one conversation, and not into another.
func TestAgentBashSession(t *testing.T) {
	ts := newToolset(t, shellcap.Options{})
	conv := ts.Conversation("bash")
	defer conv.Close()
	a := newAgent(t, agentConfig{tools: bind(t, ts, conv)})
	a.turn("1", "set up", callTools(toolset.BashTool, `{"command":"mkdir -p sub && cd sub && export GREETING=hello-there"}`), say("ok"))
	a.turn("2", "where", callTools(toolset.BashTool, `{"command":"echo \"$PWD $GREETING\""}`), say("ok"))
	mustContain(t, "second turn", a.model.lastToolResult(t), "/sub hello-there")

	other := ts.Conversation("bash-other")
	defer other.Close()
	b := newAgent(t, agentConfig{tools: bind(t, ts, other)})
	b.turn("1", "where", callTools(toolset.BashTool, `{"command":"echo \"[$GREETING]\""}`), say("ok"))
	mustContain(t, "other conversation", b.model.lastToolResult(t), "[]")
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// TestAgentStreaming: in a streaming run the agent calls the tools as
// StreamableTool; the model receives the same texts, and approvals
// interrupt and resume the same way.
func TestAgentStreaming(t *testing.T) {
	ws := t.TempDir()
	ts := newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}})
	conv := ts.Conversation("streaming")
	defer conv.Close()
	var mu sync.Mutex
	var paths []string
	a := newAgent(t, agentConfig{tools: bind(t, ts, conv), streaming: true, called: func(p string) {
		mu.Lock()
		paths = append(paths, p)
		mu.Unlock()
	}})
	o := a.turn("cp", "go", callTools(toolset.RunCommand, `{"command":"echo streamed"}`, toolset.RunCommand, `{"command":"touch made.txt"}`))
	if len(o.interrupts) != 1 {
		t.Fatalf("want one interrupt, got %+v", o)
	}
	o = a.resume("cp", map[string]any{o.interrupts[0].ID: toolset.Answer{Approved: true}}, say("done"))
	if o.text != "done" {
		t.Fatalf("resumed turn ended %+v", o)
	}
	got := a.model.toolResults()
	if want := "[stdout]\nstreamed\n"; got["call-0-run_command"] != want {
		t.Errorf("streamed result %q, want %q", got["call-0-run_command"], want)
	}
	mustContain(t, "approved", got["call-1-run_command"], "(no output)")
	if !exists(ws, "made.txt") {
		t.Error("the approved command did not run")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || slices.ContainsFunc(paths, func(p string) bool { return p != "stream" }) {
		t.Errorf("tool calls took the paths %v, want stream only", paths)
	}
}
