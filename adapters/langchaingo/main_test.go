package langchaingo_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	langchaingo "github.com/shellcap/shellcap/adapters/langchaingo"
	"github.com/shellcap/shellcap/internal/leaktest"
	"github.com/shellcap/shellcap/internal/toolsettest"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
	"github.com/tmc/langchaingo/llms"
)

// testMark is in the environment of every command the tests start, so
// that TestMain finds any process left behind.
var testMark = leaktest.Mark("SCTEST_LANGCHAINGO_MARK")

// TestMain fails the run on leaked goroutines, processes and descriptors.
func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMark, 5*time.Second))
}

// setup builds a real Shell (unconfined) in a fresh workspace with the
// given policy and toolset.Approve as its approver, a job Manager, a
// toolset and one conversation, and returns an Adapter over them.
func setup(t *testing.T, rules policy.Rules, opts langchaingo.Options) (*langchaingo.Adapter, string) {
	t.Helper()
	ts, ws := toolsettest.New(t, toolsettest.Options{Shell: shellcap.Options{Policy: rules, Env: leaktest.Env(testMark)}})
	conv := ts.Conversation(t.Name())
	t.Cleanup(func() { conv.Close() })
	return langchaingo.New(ts, conv, opts), ws
}

// approvalRules asks about every command that is not read-only.
var approvalRules = policy.Rules{Approval: true}

// testCtx is a context that ends with the test, or after a minute.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// scripted is an in-process llms.Model that replies from a script: each
// GenerateContent call takes the next step, which sees what the model was
// sent. It records every request.
type scripted struct {
	mu    sync.Mutex
	steps []func(msgs []llms.MessageContent, opts llms.CallOptions) *llms.ContentChoice
	calls int
	sent  [][]llms.MessageContent
	opts  []llms.CallOptions
}

var _ llms.Model = (*scripted)(nil)

func (m *scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range options {
		opt(&o)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, msgs)
	m.opts = append(m.opts, o)
	if m.calls >= len(m.steps) {
		return nil, fmt.Errorf("scripted model: no step %d", m.calls+1)
	}
	step := m.steps[m.calls]
	m.calls++
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{step(msgs, o)}}, nil
}

func (m *scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// done reports an error unless every step of the script was taken.
func (m *scripted) done() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls != len(m.steps) {
		return fmt.Errorf("scripted model: %d of %d steps taken", m.calls, len(m.steps))
	}
	return nil
}

// react is a ReAct step: it reads the prompt (the whole text sent) and
// writes the model's text.
func react(write func(prompt string) string) func([]llms.MessageContent, llms.CallOptions) *llms.ContentChoice {
	return func(msgs []llms.MessageContent, _ llms.CallOptions) *llms.ContentChoice {
		return &llms.ContentChoice{Content: write(text(msgs))}
	}
}

// text is the text of every message.
func text(msgs []llms.MessageContent) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if tp, ok := p.(llms.TextContent); ok {
				b.WriteString(tp.Text)
			}
		}
	}
	return b.String()
}

// jobID is the last job ID the model was shown in s.
func jobID(s string) string {
	ids := regexp.MustCompile(`\b[0-9a-f]{32}\b`).FindAllString(s, -1)
	if len(ids) == 0 {
		return "none-seen"
	}
	return ids[len(ids)-1]
}

// errAsk is a failing approver's error.
var errAsk = errors.New("the terminal is gone")

// waitOutput waits, as a user would before the next turn, until job id
// has printed want (it goes through a pipe to the job's log, so it is not
// there at once).
func waitOutput(t *testing.T, a *langchaingo.Adapter, id, want string) {
	t.Helper()
	wait := a.Toolset().Tool(toolset.WaitCommand)
	for range 100 {
		res, err := wait.Call(testCtx(t), a.Conversation(), []byte(`{"command_id":"`+id+`","timeout_seconds":0.1}`), toolset.Hooks{})
		if err != nil || res.IsError {
			t.Fatalf("wait_command %s: %v %+v", id, err, res)
		}
		if strings.Contains(res.Text, want) {
			return
		}
	}
	t.Fatalf("job %s never printed %q", id, want)
}

// approvalPolicyReason is why approvalRules ask about `touch`.
const approvalPolicyReason = "Command 'touch' is not on the list of read-only commands, so it needs the user's approval."

// approvalCase is one answer of the user's to the question about
// `touch made.txt`, and what the model must then read.
type approvalCase struct {
	name    string
	approve func(context.Context, toolset.Question) (toolset.Answer, error)
	runs    bool
	want    []string
}

// approvalCases are the answers every approval test goes through: approved,
// declined with a reason, an approver that fails and no approver at all
// (the last two refuse with the policy's reason).
func approvalCases() []approvalCase {
	return []approvalCase{
		{"approved", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Approved: true}, nil
		}, true, []string{"(no output)"}},
		{"declined", func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Reason: "not in my repo"}, nil
		}, false, []string{"The user did not approve this command. Reason: not in my repo"}},
		{"approver fails", func(context.Context, toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{}, errAsk
		}, false, []string{"could not be asked for (" + errAsk.Error() + ")", approvalPolicyReason}},
		{"no approver", nil, false, []string{toolset.ErrNoApprover.Error(), approvalPolicyReason}},
	}
}

// options gives the case's approver, recording every question in asked.
func (tc approvalCase) options(asked *[]toolset.Question) langchaingo.Options {
	opts := langchaingo.Options{}
	if tc.approve != nil {
		opts.Approve = func(ctx context.Context, q toolset.Question) (toolset.Answer, error) {
			*asked = append(*asked, q)
			return tc.approve(ctx, q)
		}
	}
	return opts
}

// checkAsked checks that an approver, when there was one, was asked once
// about the command through tool.
func (tc approvalCase) checkAsked(t *testing.T, asked []toolset.Question, tool string) {
	t.Helper()
	if tc.approve != nil && (len(asked) != 1 || asked[0].Command != "touch made.txt" || asked[0].Tool != tool || asked[0].Reason != approvalPolicyReason) {
		t.Errorf("asked %+v", asked)
	}
}
