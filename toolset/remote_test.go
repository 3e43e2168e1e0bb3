package toolset_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// loopback is a toolset.Remote over another, local toolset: what a worker
// does with a forwarded call, in process. As a worker's activity, it asks
// by interrupt.
type loopback struct {
	ts *toolset.Toolset

	mu     sync.Mutex
	calls  []string // tool names, in order
	closed []string
}

func (l *loopback) Call(ctx context.Context, conversation, name string, args json.RawMessage, hooks toolset.Hooks) (*toolset.Result, error) {
	l.mu.Lock()
	l.calls = append(l.calls, name)
	l.mu.Unlock()
	c := l.ts.Stateless()
	if conversation != "" {
		c = l.ts.Conversation(conversation)
	}
	return c.Call(ctx, name, args, toolset.Hooks{Interrupt: true, Answer: hooks.Answer})
}

func (l *loopback) Close(conversation string) error {
	l.mu.Lock()
	l.closed = append(l.closed, conversation)
	l.mu.Unlock()
	return l.ts.Conversation(conversation).Close()
}

// TestRemoteDefinitions: a remote toolset without a Shell offers every
// tool with exactly the definitions of a local toolset on a default Shell.
func TestRemoteDefinitions(t *testing.T) {
	local := newToolset(t, shellcap.Options{}, toolset.Options{})
	remote, err := toolset.New(toolset.Options{Remote: &loopback{ts: local}})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	lt, rt := local.Tools(), remote.Tools()
	if len(lt) != len(toolset.AllTools) || len(rt) != len(lt) {
		t.Fatalf("local offers %d tools, remote %d, want %d", len(lt), len(rt), len(toolset.AllTools))
	}
	for i := range lt {
		l, r := lt[i], rt[i]
		if l.Name != r.Name || l.Title != r.Title || l.Description != r.Description || l.Annotations != r.Annotations ||
			!reflect.DeepEqual(l.InputSchema, r.InputSchema) || !reflect.DeepEqual(l.OutputSchema, r.OutputSchema) {
			t.Errorf("tool %d: remote definition of %s differs from the local one", i, l.Name)
		}
	}
	if _, err := toolset.New(toolset.Options{Remote: &loopback{ts: local}, Jobs: nil, ForegroundTimeout: 1}); err == nil {
		t.Error("a remote toolset with ForegroundTimeout was accepted")
	}
}

// TestRemoteCalls: a call through a remote toolset gives what the same
// call gives locally; the conversation travels (a bash cd persists);
// Close reaches the remote.
func TestRemoteCalls(t *testing.T) {
	local := newToolset(t, shellcap.Options{}, toolset.Options{})
	lb := &loopback{ts: local}
	remote, err := toolset.New(toolset.Options{Remote: lb})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	conv := remote.Conversation("r1")
	args := `{"command":"printf 'a\\nb'; echo err >&2; exit 3"}`
	got := call(t, conv, toolset.RunCommand, args, toolset.Hooks{})
	want := call(t, local.Conversation("direct"), toolset.RunCommand, args, toolset.Hooks{})
	if got.Text != want.Text || got.IsError != want.IsError {
		t.Errorf("remote text %q (error %v), local %q (error %v)", got.Text, got.IsError, want.Text, want.IsError)
	}
	call(t, conv, toolset.BashTool, `{"command":"mkdir -p sub && cd sub"}`, toolset.Hooks{})
	pwd := call(t, conv, toolset.BashTool, `{"command":"pwd"}`, toolset.Hooks{})
	if !strings.Contains(pwd.Text, string(filepath.Separator)+"sub") {
		t.Errorf("the remote conversation's shell lost its directory: %q", pwd.Text)
	}
	if err := conv.Close(); err != nil {
		t.Fatal(err)
	}
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if len(lb.closed) != 1 || lb.closed[0] != "r1" {
		t.Errorf("Close reached the remote as %q, want [r1]", lb.closed)
	}
	if strings.Join(lb.calls, ",") != "run_command,bash,bash" {
		t.Errorf("calls forwarded: %v", lb.calls)
	}
}

// TestRemoteApproval: a remote command the policy asks about is asked of
// a synchronous host (Hooks.Approve) and runs only when approved; declined
// it is refused with the user's reason; with Hooks.Interrupt the host gets
// the question back; with no way to ask it is refused.
func TestRemoteApproval(t *testing.T) {
	ws := t.TempDir()
	local := newToolset(t, shellcap.Options{Workspace: ws, Policy: policy.Rules{Approval: true}}, toolset.Options{})
	remote, err := toolset.New(toolset.Options{Remote: &loopback{ts: local}})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	conv := remote.Conversation("appr")
	defer conv.Close()
	answer := func(ok bool) func(context.Context, toolset.Question) (toolset.Answer, error) {
		return func(_ context.Context, q toolset.Question) (toolset.Answer, error) {
			return toolset.Answer{Command: q.Command, Approved: ok, Reason: "not today"}, nil
		}
	}
	res := call(t, conv, toolset.RunCommand, `{"command":"touch yes"}`, toolset.Hooks{Approve: answer(true)})
	if res.IsError || !exists(filepath.Join(ws, "yes")) {
		t.Errorf("approved: %q, file made: %v", res.Text, exists(filepath.Join(ws, "yes")))
	}
	res = call(t, conv, toolset.RunCommand, `{"command":"touch no"}`, toolset.Hooks{Approve: answer(false)})
	if !res.IsError || !strings.Contains(res.Text, "not today") || exists(filepath.Join(ws, "no")) {
		t.Errorf("declined: %q (error %v)", res.Text, res.IsError)
	}
	res = call(t, conv, toolset.RunCommand, `{"command":"touch later"}`, toolset.Hooks{Interrupt: true})
	if res.Pending == nil || res.Pending.Command != "touch later" || exists(filepath.Join(ws, "later")) {
		t.Fatalf("interrupt: %q pending %+v", res.Text, res.Pending)
	}
	a := toolset.Answer{Command: "touch later", Approved: true}
	res = call(t, conv, toolset.RunCommand, `{"command":"touch later"}`, toolset.Hooks{Interrupt: true, Answer: &a})
	if res.IsError || res.Pending != nil || !exists(filepath.Join(ws, "later")) {
		t.Errorf("resumed with the answer: %q", res.Text)
	}
	res = call(t, conv, toolset.RunCommand, `{"command":"touch nobody"}`, toolset.Hooks{})
	if !res.IsError || res.Pending != nil || exists(filepath.Join(ws, "nobody")) {
		t.Errorf("no approver: %q (error %v)", res.Text, res.IsError)
	}
}

// TestSetBashDir: a conversation's next bash shell starts where
// SetBashDir says; one that cannot get there refuses the call and the
// next shell starts in the workspace root.
func TestSetBashDir(t *testing.T) {
	ws := t.TempDir()
	ts := newToolset(t, shellcap.Options{Workspace: ws}, toolset.Options{})
	conv := ts.Conversation("dir")
	defer conv.Close()
	call(t, ts.Conversation("mk"), toolset.RunCommand, `{"command":"mkdir -p a/b"}`, toolset.Hooks{})
	conv.SetBashDir(filepath.Join(ws, "a", "b"))
	res := call(t, conv, toolset.BashTool, `{"command":"pwd"}`, toolset.Hooks{})
	if res.IsError || res.Run == nil || strings.TrimSpace(res.Run.Stdout) != res.Run.Cwd || !strings.HasSuffix(res.Run.Cwd, "/a/b") {
		t.Fatalf("first bash call after SetBashDir: %q", res.Text)
	}
	conv.SetBashDir(filepath.Join(ws, "a")) // the shell runs: not moved
	res = call(t, conv, toolset.BashTool, `{"command":"pwd"}`, toolset.Hooks{})
	if !strings.HasSuffix(strings.TrimSpace(res.Run.Stdout), "/a/b") {
		t.Errorf("a running shell was moved: %q", res.Text)
	}
	other := ts.Conversation("gone")
	defer other.Close()
	other.SetBashDir(filepath.Join(ws, "missing"))
	res = call(t, other, toolset.BashTool, `{"command":"touch here"}`, toolset.Hooks{})
	if !res.IsError || !strings.Contains(res.Text, "missing") || exists(filepath.Join(ws, "here")) {
		t.Errorf("a shell that cannot enter its directory: %q (error %v)", res.Text, res.IsError)
	}
	res = call(t, other, toolset.BashTool, `{"command":"pwd"}`, toolset.Hooks{})
	if res.IsError || res.Run == nil || res.Run.Cwd != strings.TrimSpace(res.Run.Stdout) || strings.Contains(res.Run.Cwd, "missing") {
		t.Errorf("the shell after the refusal: %q", res.Text)
	}
}
