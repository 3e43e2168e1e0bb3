package langchaingo_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"
)

// action is one ReAct step of the model and what it must then read.
type action struct {
	tool, input string
	observe     []string // the next prompt has these in the observation
}

// reactScript is a model that takes the actions in order, then gives a
// final answer (one-shot format); prompts receives every prompt.
func reactScript(acts []action, final string, prompts *[]string) *scripted {
	m := &scripted{}
	for _, a := range acts {
		m.steps = append(m.steps, react(func(p string) string {
			*prompts = append(*prompts, p)
			return "Thought: I use a tool.\nAction: " + a.tool + "\nAction Input: " + a.input
		}))
	}
	m.steps = append(m.steps, react(func(p string) string {
		*prompts = append(*prompts, p)
		return "Thought: I now know the final answer\nFinal Answer: " + final
	}))
	return m
}

// checkObservations checks that after each action the model read its
// observations, as the scratchpad's last observation.
func checkObservations(t *testing.T, acts []action, prompts []string) {
	t.Helper()
	if len(prompts) != len(acts)+1 {
		t.Fatalf("%d prompts for %d actions", len(prompts), len(acts))
	}
	for i, a := range acts {
		p := prompts[i+1]
		obs := p[strings.LastIndex(p, "Observation: "):]
		for _, want := range a.observe {
			if !strings.Contains(obs, want) {
				t.Errorf("after %s %s the model read %q, want %q in it", a.tool, a.input, obs, want)
			}
		}
	}
}

// toolLog records a tool's callbacks.
type toolLog struct {
	callbacks.SimpleHandler
	mu         sync.Mutex
	start, end []string
}

func (l *toolLog) HandleToolStart(_ context.Context, input string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start = append(l.start, input)
}

func (l *toolLog) HandleToolEnd(_ context.Context, output string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.end = append(l.end, output)
}

// TestReActAgent: a one-shot ReAct agent run by agents.Executor calls the
// tools with the JSON input it writes, and reads the output, the exit
// code, the policy's denial and the precise text about bad input; the
// prompt describes each tool with its input schema.
func TestReActAgent(t *testing.T) {
	log := &toolLog{}
	a, ws := setup(t, policy.Rules{}, langchaingo.Options{Callbacks: log})
	acts := []action{
		{"run_command", `{"command":"echo hi; echo oops >&2; exit 3"}`, []string{"[stdout]\nhi\n", "[stderr]\noops\n", "[exit code: 3]"}},
		{"run_command", `{"command":"rm -rf important"}`, []string{"Command 'rm' is denied."}},
		{"run_command", `{"cmd":"ls"}`, []string{`Invalid arguments for run_command: unknown argument "cmd".`}},
		{"bash", "```json\n{\"command\":\"echo fenced > f.txt && cat f.txt\"}\n```", []string{"[stdout]\nfenced\n"}},
		{"list_commands", `{}`, []string{"(no background commands)"}},
		{"no_such_tool", `{}`, []string{"no_such_tool is not a valid tool"}},
	}
	var prompts []string
	model := reactScript(acts, "done", &prompts)
	tools := a.Tools()
	exec := agents.NewExecutor(agents.NewOneShotAgent(model, tools), agents.WithMaxIterations(len(acts)+1))
	out, err := chains.Run(testCtx(t), exec, "Try the shell.")
	if err != nil || out != "done" {
		t.Fatalf("executor: %q, %v", out, err)
	}
	if err := model.done(); err != nil {
		t.Error(err)
	}
	checkObservations(t, acts, prompts)

	for _, tl := range tools {
		if !strings.Contains(prompts[0], "- "+tl.Name()+": ") || !strings.Contains(prompts[0], tl.Description()) {
			t.Errorf("the prompt does not describe %s", tl.Name())
		}
		if !strings.Contains(tl.Description(), `"properties":`) {
			t.Errorf("%s: the description does not give the input schema: %s", tl.Name(), tl.Description())
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "f.txt")); err != nil || string(b) != "fenced\n" {
		t.Errorf("the fenced command did not run in the workspace: %q, %v", b, err)
	}
	if len(log.start) != len(acts)-1 || len(log.end) != len(acts)-1 || log.start[0] != acts[0].input || !strings.Contains(log.end[0], "[exit code: 3]") {
		t.Errorf("tool callbacks: start %q, end %q", log.start, log.end)
	}
}

// TestReActTurns: a conversational agent with memory, over three runs of
// the executor (three turns of the user): the bash session keeps its
// directory and variables, and a job started in the first turn is checked
// in the second and stopped in the third, by the ID the model read.
func TestReActTurns(t *testing.T) {
	a, ws := setup(t, policy.Rules{}, langchaingo.Options{})
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	turns := []struct {
		input string
		act   func(prompt string) action
	}{
		{"Go to sub and start the server.", func(string) action {
			return action{"bash", `{"command":"cd sub && export PORT=8642"}`, nil}
		}},
		{"", func(string) action {
			return action{"start_command", `{"command":"echo listening; sleep 120"}`, []string{"Started background command", "ID: "}}
		}},
		{"Where are we, and is it up?", func(string) action {
			return action{"bash", `{"command":"echo \"$PWD $PORT\""}`, []string{filepath.Join(ws, "sub") + " 8642"}}
		}},
		{"", func(p string) action {
			return action{"check_command", `{"command_id":"` + jobID(p) + `"}`, []string{"listening", "running"}}
		}},
		{"Stop it.", func(p string) action {
			return action{"stop_command", `{"command_id":"` + jobID(p) + `"}`, []string{"stopped"}}
		}},
	}
	model := &scripted{}
	var prompts []string
	type seen struct {
		act  action
		next int // the prompt after the action
	}
	var acts []seen
	for i, turn := range turns {
		model.steps = append(model.steps, react(func(p string) string {
			prompts = append(prompts, p)
			act := turn.act(p)
			acts = append(acts, seen{act, len(prompts)})
			return "Thought: Do I need to use a tool? Yes\nAction: " + act.tool + "\nAction Input: " + act.input
		}))
		if i+1 == len(turns) || turns[i+1].input != "" {
			model.steps = append(model.steps, react(func(p string) string {
				prompts = append(prompts, p)
				// The answer names the job, so that the next turn's
				// model reads its ID in the history.
				return "Thought: Do I need to use a tool? No\nAI: job " + jobID(p)
			}))
		}
	}
	conversation := agents.NewConversationalAgent(model, a.Tools())
	exec := agents.NewExecutor(conversation, agents.WithMemory(memory.NewConversationBuffer()), agents.WithMaxIterations(4))
	for i, turn := range turns {
		if turn.input == "" {
			continue
		}
		if i > 0 && len(prompts) > 0 {
			waitOutput(t, a, jobID(prompts[len(prompts)-1]), "listening")
		}
		if _, err := chains.Run(testCtx(t), exec, turn.input); err != nil {
			t.Fatalf("turn %q: %v", turn.input, err)
		}
	}
	if err := model.done(); err != nil {
		t.Fatal(err)
	}
	for _, s := range acts {
		p := prompts[s.next]
		obs := p[strings.LastIndex(p, "Observation: "):]
		for _, want := range s.act.observe {
			if !strings.Contains(obs, want) {
				t.Errorf("after %s %s the model read %q, want %q in it", s.act.tool, s.act.input, obs, want)
			}
		}
	}
	if !strings.Contains(prompts[len(prompts)-2], "Human: Where are we, and is it up?") {
		t.Errorf("the last turn's prompt has no history: %s", prompts[len(prompts)-2])
	}
}

// TestReActApproval: LangChainGo has no human-in-the-loop, so a command the
// policy asks about is put to Options.Approve while the tool call waits:
// approved it runs, declined the model reads the user's reason; a failing
// approver or none at all refuses it with the policy's reason.
func TestReActApproval(t *testing.T) {
	for _, tc := range approvalCases() {
		t.Run(tc.name, func(t *testing.T) {
			var asked []toolset.Question
			opts := tc.options(&asked)
			a, ws := setup(t, approvalRules, opts)
			acts := []action{{"run_command", `{"command":"touch made.txt"}`, tc.want}}
			var prompts []string
			model := reactScript(acts, "done", &prompts)
			exec := agents.NewExecutor(agents.NewOneShotAgent(model, a.Tools()))
			if _, err := chains.Run(testCtx(t), exec, "Make a file."); err != nil {
				t.Fatal(err)
			}
			checkObservations(t, acts, prompts)
			if _, err := os.Stat(filepath.Join(ws, "made.txt")); (err == nil) != tc.runs {
				t.Errorf("ran: %v, want %v", err == nil, tc.runs)
			}
			tc.checkAsked(t, asked, "run_command")
		})
	}
}

// TestReActInput: a ReAct tool takes the JSON object as the model wrote
// it, with blanks around it or in a Markdown code fence; anything else gets
// the toolset's text about invalid arguments.
func TestReActInput(t *testing.T) {
	a, _ := setup(t, policy.Rules{}, langchaingo.Options{})
	var run interface {
		Call(context.Context, string) (string, error)
	}
	for _, tl := range a.Tools() {
		if tl.Name() == toolset.RunCommand {
			run = tl
		}
	}
	for _, tc := range []struct{ input, want string }{
		{`{"command":"echo in"}`, "[stdout]\nin\n"},
		{"  \n{\"command\":\"echo in\"}\n ", "[stdout]\nin\n"},
		{"```json\n{\"command\":\"echo in\"}\n```", "[stdout]\nin\n"},
		{"```\n{\"command\":\"echo in\"}\n```", "[stdout]\nin\n"},
		{"```{\"command\":\"echo in\"}```", "[stdout]\nin\n"},
		{`echo in`, "Invalid arguments for run_command: "},
		{``, `Invalid arguments for run_command: missing required argument "command".`},
	} {
		got, err := run.Call(testCtx(t), tc.input)
		if err != nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("input %q: %q, %v; want %q", tc.input, got, err, tc.want)
		}
	}
}
