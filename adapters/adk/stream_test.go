package adk_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"google.golang.org/adk/v2/agent"
)

// A long command's output reaches Options.Output while it runs: the
// command waits for a file that only the Output callback creates, on seeing
// the command's first line.
func TestOutputStreamsWhileTheCommandRuns(t *testing.T) {
	var mu sync.Mutex
	var streamed strings.Builder
	var sessions []string
	var h *harness
	h = newHarness(t, policy.Rules{}, adk.Options{Output: func(ctx agent.Context, s shellcap.Stream, data []byte) {
		mu.Lock()
		defer mu.Unlock()
		streamed.Write(data)
		sessions = append(sessions, ctx.SessionID())
		if s == shellcap.Stdout && strings.Contains(string(data), "first") {
			os.WriteFile(filepath.Join(h.ws, "go-on"), nil, 0o644)
		}
	}})
	sid := h.newSession(t)
	got := output(t, h.call(t, sid, toolset.RunCommand,
		`{"command":"echo first; for i in $(seq 400); do [ -e go-on ] && break; sleep 0.05; done; [ -e go-on ] && echo streamed || echo not-streamed"}`))
	if got != "[stdout]\nfirst\nstreamed\n" {
		t.Errorf("model received %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if streamed.String() != "first\nstreamed\n" {
		t.Errorf("Output received %q", streamed.String())
	}
	for _, s := range sessions {
		if s != sid {
			t.Errorf("Output got the context of session %q, want %q", s, sid)
		}
	}
}

func TestShellToolEvents(t *testing.T) {
	var mu sync.Mutex
	var kinds []jobs.ShellEventKind
	h := newHarness(t, policy.Rules{}, adk.Options{Event: func(_ agent.Context, ev jobs.ShellEvent) {
		mu.Lock()
		kinds = append(kinds, ev.Kind)
		mu.Unlock()
	}})
	sid := h.newSession(t)
	got := output(t, h.call(t, sid, toolset.ShellTool, `{"command":"echo via-shell"}`))
	if !strings.Contains(got, "via-shell") {
		t.Errorf("model received %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kinds) == 0 {
		t.Error("Options.Event received no job event")
	}
}

func TestRememberedApprovalHoldsForTheSession(t *testing.T) {
	h := newHarness(t, policy.Rules{Approval: true}, adk.Options{})
	sid := h.newSession(t)
	const args = `{"command":"touch again.txt && echo ok"}`
	fc := confirmationRequest(h.turnCalling(t, sid, toolset.RunCommand, args))
	if fc == nil {
		t.Fatal("no confirmation request")
	}
	p := echoPayload(fc).(map[string]any)
	p["remember"] = true
	h.turn(t, sid, confirm(fc, true, p))
	if got := output(t, h.model.lastResponse(t).Response); got != "[stdout]\nok\n" {
		t.Fatalf("approved call: %q", got)
	}
	// The same command again runs without asking.
	if fc := confirmationRequest(h.turnCalling(t, sid, toolset.RunCommand, args)); fc != nil {
		t.Fatal("a remembered approval was asked again")
	}
	if got := output(t, h.model.lastResponse(t).Response); got != "[stdout]\nok\n" {
		t.Errorf("second call: %q", got)
	}
	// Another session is asked.
	if fc := confirmationRequest(h.turnCalling(t, h.newSession(t), toolset.RunCommand, args)); fc == nil {
		t.Error("another session used this session's remembered approval")
	}
}

// A run_command still running after the toolset's ForegroundTimeout
// becomes a job: the model reads the output so far and the job's ID in this
// turn, and checks it in a later one.
func TestLongCommandPromotedAcrossTurns(t *testing.T) {
	h := newHarnessWith(t, policy.Rules{}, adk.Options{}, toolset.Options{ForegroundTimeout: 200 * time.Millisecond})
	sid := h.newSession(t)
	got := output(t, h.call(t, sid, toolset.RunCommand, `{"command":"echo begun; sleep 60"}`))
	id := regexp.MustCompile(`[0-9a-f]{32}`).FindString(got)
	if id == "" {
		t.Fatalf("promoted run_command: %q, want a job ID", got)
	}
	checked := output(t, h.call(t, sid, toolset.CheckCommand, `{"command_id":"`+id+`"}`))
	if !strings.Contains(checked, "running") {
		t.Errorf("check_command %q does not report the job running", checked)
	}
	// The output so far, then the rest: "begun" is in one of them.
	if !strings.Contains(got+checked, "begun") {
		t.Errorf("neither the promoted result %q nor check_command %q has the output", got, checked)
	}
	output(t, h.call(t, sid, toolset.StopCommand, `{"command_id":"`+id+`"}`))
}
