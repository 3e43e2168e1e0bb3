package adk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
	"google.golang.org/genai"
)

// output is the "output" text of a response, failing the test when the
// response is an error.
func output(t *testing.T, resp map[string]any) string {
	t.Helper()
	if e, ok := resp["error"]; ok {
		t.Fatalf("unexpected error response: %v", e)
	}
	s, ok := resp["output"].(string)
	if !ok {
		t.Fatalf("response has no output text: %#v", resp)
	}
	return s
}

// errorOf is the "error" text of a response, failing the test when it has
// none.
func errorOf(t *testing.T, resp map[string]any) string {
	t.Helper()
	s, ok := resp["error"].(string)
	if !ok {
		t.Fatalf("response is not an error: %#v", resp)
	}
	return s
}

func TestDeclarationsAreTheToolsetsSchemas(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	h.call(t, sid, toolset.ListCommands, `{}`)
	req := h.model.requests[0]
	var names []string
	for _, gt := range req.Config.Tools {
		for _, d := range gt.FunctionDeclarations {
			names = append(names, d.Name)
			tt := h.ts.Tool(d.Name)
			if tt == nil {
				t.Fatalf("declared tool %q is not in the toolset", d.Name)
			}
			if d.Description != tt.Description {
				t.Errorf("%s: description differs from the toolset's", d.Name)
			}
			if !sameJSON(t, d.ParametersJsonSchema, tt.InputSchema) {
				t.Errorf("%s: parameters schema differs from the toolset's", d.Name)
			}
		}
	}
	if !slices.Equal(names, toolset.AllTools) {
		t.Errorf("declared %v, want %v", names, toolset.AllTools)
	}
}

func TestRunCommandOutputAndExitCode(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	got := output(t, h.call(t, sid, toolset.RunCommand, `{"command":"echo hello; echo oops >&2; exit 3"}`))
	want := "[stdout]\nhello\n\n[stderr]\noops\n\n[exit code: 3]"
	if got != want {
		t.Errorf("model received %q, want %q", got, want)
	}
}

func TestInvalidArgumentsGetTheToolsetsText(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	got := errorOf(t, h.call(t, sid, toolset.RunCommand, `{"cmd":"ls"}`))
	if want := `Invalid arguments for run_command: unknown argument "cmd".`; got != want {
		t.Errorf("model received %q, want %q", got, want)
	}
}

func TestDeniedCommandTellsThePolicysReason(t *testing.T) {
	h := newHarness(t, policy.Rules{Approval: true}, adk.Options{})
	sid := h.newSession(t)
	evs := h.turnCalling(t, sid, toolset.RunCommand, `{"command":"git reset --hard"}`)
	if fc := confirmationRequest(evs); fc != nil {
		t.Fatalf("a denied command asked for confirmation: %v", fc.Args)
	}
	got := errorOf(t, h.model.lastResponse(t).Response)
	// The oracle: the toolset's own text for the same call.
	want, err := h.ts.Conversation("oracle").Call(t.Context(), toolset.RunCommand, []byte(`{"command":"git reset --hard"}`), toolset.Hooks{Interrupt: true})
	if err != nil || !want.IsError {
		t.Fatalf("oracle: %v, %+v", err, want)
	}
	if got != want.ModelText() || !strings.Contains(got, "git stash") {
		t.Errorf("model received %q, want the policy's reason %q", got, want.ModelText())
	}
}

func TestApprovalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		approve bool
		payload func(fc *genai.FunctionCall) any
	}{
		{"approved", true, echoPayload},
		{"approved without payload", true, func(*genai.FunctionCall) any { return nil }},
		{"declined", false, func(fc *genai.FunctionCall) any {
			p := echoPayload(fc).(map[string]any)
			p["decline_reason"] = "not in this repo"
			return p
		}},
		{"declined without payload", false, func(*genai.FunctionCall) any { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var streamed strings.Builder
			h := newHarness(t, policy.Rules{Approval: true}, adk.Options{Output: func(_ agent.Context, _ shellcap.Stream, data []byte) {
				mu.Lock()
				streamed.Write(data)
				mu.Unlock()
			}})
			sid := h.newSession(t)
			before := h.model.responseCount()

			// Turn 1: the model's call ends the turn with ADK's
			// confirmation request; nothing ran, the model was not
			// called again.
			evs := h.turnCalling(t, sid, toolset.RunCommand, `{"command":"touch notes.txt && echo made"}`)
			fc := confirmationRequest(evs)
			if fc == nil {
				t.Fatal("no adk_request_confirmation call in the turn's events")
			}
			hint := confirmationHint(t, fc)
			if !strings.Contains(hint, "touch notes.txt") {
				t.Errorf("hint %q does not name the command", hint)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "notes.txt")); err == nil {
				t.Fatal("the command ran before it was approved")
			}
			if n := h.model.responseCount(); n != before {
				t.Errorf("the model was called with %d function responses while waiting for approval", n-before)
			}

			// Turn 2: the user's answer resumes the call.
			h.turn(t, sid, confirm(fc, tc.approve, tc.payload(fc)))
			_, statErr := os.Stat(filepath.Join(h.ws, "notes.txt"))
			resp := h.model.lastResponse(t)
			if resp.Name != toolset.RunCommand {
				t.Fatalf("the model received a response of %q", resp.Name)
			}
			if h.model.sawText("Waiting for the user") {
				t.Error("the model was shown the pending call's placeholder response")
			}
			if tc.approve {
				if statErr != nil {
					t.Fatalf("approved command did not run: %v", statErr)
				}
				if got := output(t, resp.Response); got != "[stdout]\nmade\n" {
					t.Errorf("model received %q", got)
				}
				mu.Lock()
				defer mu.Unlock()
				if streamed.String() != "made\n" {
					t.Errorf("Options.Output received %q, want the command's output", streamed.String())
				}
				return
			}
			if statErr == nil {
				t.Fatal("declined command ran")
			}
			got := errorOf(t, resp.Response)
			want := "The user did not approve this command."
			if p, _ := tc.payload(fc).(map[string]any); p != nil {
				want += " Reason: not in this repo"
			}
			if got != want {
				t.Errorf("model received %q, want %q", got, want)
			}
		})
	}
}

func TestApprovalCountsOnlyForItsCommand(t *testing.T) {
	h := newHarness(t, policy.Rules{Approval: true}, adk.Options{})
	sid := h.newSession(t)
	fc := confirmationRequest(h.turnCalling(t, sid, toolset.RunCommand, `{"command":"touch a.txt"}`))
	if fc == nil {
		t.Fatal("no confirmation request")
	}
	// The application approves, but names another command.
	p := echoPayload(fc).(map[string]any)
	p["command"] = "touch b.txt"
	h.turn(t, sid, confirm(fc, true, p))
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
		t.Fatal("an approval of another command ran this one")
	}
	got := errorOf(t, h.model.lastResponse(t).Response)
	if want := `Not run: the user's confirmation was about another command ("touch b.txt"), not "touch a.txt". Call the tool again to ask about it.`; got != want {
		t.Errorf("model received %q, want %q", got, want)
	}
}

func TestJobAcrossTurns(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	started := output(t, h.call(t, sid, toolset.StartCommand, `{"command":"sleep 60"}`))
	id := regexp.MustCompile(`\b[0-9a-f]{6,}\b|job[-_][0-9A-Za-z]+`).FindString(started)
	if id == "" {
		t.Fatalf("no job ID in %q", started)
	}
	if list := output(t, h.call(t, sid, toolset.ListCommands, `{}`)); !strings.Contains(list, id) {
		t.Errorf("list_commands %q lacks job %s", list, id)
	}
	checked := output(t, h.call(t, sid, toolset.CheckCommand, `{"command_id":"`+id+`"}`))
	if !strings.Contains(checked, "running") {
		t.Errorf("check_command %q does not report the job running", checked)
	}
	stopped := output(t, h.call(t, sid, toolset.StopCommand, `{"command_id":"`+id+`"}`))
	if !strings.HasSuffix(stopped, "[stopped]\n[exit code: 143]") {
		t.Errorf("stop_command %q does not report the job stopped by SIGTERM", stopped)
	}
	// A stopped job is gone: checking it is an error the model can read.
	gone := errorOf(t, h.call(t, sid, toolset.CheckCommand, `{"command_id":"`+id+`"}`))
	if want := "[Error: unknown command ID '" + id + "']"; gone != want {
		t.Errorf("check_command after stop: %q, want %q", gone, want)
	}

	// Another session does not list this session's job.
	other := h.newSession(t)
	if list := output(t, h.call(t, other, toolset.ListCommands, `{}`)); strings.Contains(list, id) {
		t.Errorf("another session lists job %s: %q", id, list)
	}
}

func TestBashSessionStateAcrossTurns(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	output(t, h.call(t, sid, toolset.BashTool, `{"command":"mkdir -p sub && cd sub && export GREETING=hi"}`))
	got := output(t, h.call(t, sid, toolset.BashTool, `{"command":"echo \"$GREETING $PWD\""}`))
	if want := "hi " + filepath.Join(h.ws, "sub"); !strings.Contains(got, want) {
		t.Errorf("second turn got %q, want %q", got, want)
	}

	// A new session gets a new shell.
	other := h.newSession(t)
	got = output(t, h.call(t, other, toolset.BashTool, `{"command":"echo \"[$GREETING]\""}`))
	if !strings.Contains(got, "[]") {
		t.Errorf("another session sees the first one's shell: %q", got)
	}

	// EndSession closes the session's shell: a later call starts afresh.
	if err := h.adk.EndSession(appName, userID, sid); err != nil {
		t.Fatal(err)
	}
	got = output(t, h.call(t, sid, toolset.BashTool, `{"command":"echo \"[$GREETING]\""}`))
	if !strings.Contains(got, "[]") {
		t.Errorf("after EndSession the shell kept its state: %q", got)
	}
}

// Two calls in one model response: the one the policy allows runs at once,
// the one it asks about waits for the user; the model reads both results.
func TestParallelCallsOneAsks(t *testing.T) {
	h := newHarness(t, policy.Rules{Approval: true}, adk.Options{})
	sid := h.newSession(t)
	h.model.queueParallel(
		toolset.RunCommand, `{"command":"echo free"}`,
		toolset.RunCommand, `{"command":"touch asked.txt && echo asked"}`)
	evs := h.turn(t, sid, genai.NewContentFromText("go on", genai.RoleUser))
	asks := requests(evs)
	if len(asks) != 1 || asks[0].Confirmation.Command != "touch asked.txt && echo asked" {
		t.Fatalf("requests %+v, want one for the touch", asks)
	}
	h.turn(t, sid, asks[0].Approve(false))
	if _, err := os.Stat(filepath.Join(h.ws, "asked.txt")); err != nil {
		t.Fatalf("approved command did not run: %v", err)
	}
	last := h.model.requests[len(h.model.requests)-1]
	var got []string
	for _, c := range last.Contents {
		for _, p := range c.Parts {
			if r := p.FunctionResponse; r != nil {
				got = append(got, fmt.Sprint(r.Response["output"]))
			}
		}
	}
	want := []string{"[stdout]\nfree\n", "[stdout]\nasked\n"}
	if !slices.Equal(got, want) {
		t.Errorf("model's history has responses %q, want %q", got, want)
	}
}
