//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/toolset"
)

// approvalPolicy asks about every command that is not read-only.
func approvalPolicy(o *WorkerOptions) {
	base := o.Shell
	o.Shell = func(ws string) shellcap.Options {
		so := base(ws)
		so.Policy = policy.Rules{Approval: true}
		return so
	}
}

// twinToolset is the toolset a worker with opts builds for workspace ws
// (its Shell, a jobs.Manager), built here.
func twinToolset(t *testing.T, opts WorkerOptions, ws string) *toolset.Toolset {
	t.Helper()
	so := opts.Shell(ws)
	so.Workspace = ws
	sh, err := shellcap.New(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	m, err := jobs.New(sh, jobs.Options{KeyDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ts, err := toolset.New(toolset.Options{Shell: sh, Jobs: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Close() })
	return ts
}

// TestFrontDoorTextsMatchLocal: for each call, what the model reads
// through the front door (a toolset whose Remote is the FrontDoor, with
// the host's hooks) is exactly what a local toolset gives for the same
// call and hooks on a twin workspace: text, error flag, pending question.
// Only the workspaces' paths and saved-output file names differ.
func TestFrontDoorTextsMatchLocal(t *testing.T) {
	e := newEnv(t)
	var opts WorkerOptions
	ref := e.host("fd-texts-"+sanitize(t.Name()), func(o *WorkerOptions) { approvalPolicy(o); opts = *o })
	fd, err := NewFrontDoor(e.c, FrontDoorOptions{Workspaces: []WorkspaceRef{ref}})
	if err != nil {
		t.Fatal(err)
	}
	remote, err := toolset.New(toolset.Options{Remote: fd})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	twin := t.TempDir()
	local := twinToolset(t, opts, twin)

	approve := func(a toolset.Answer, err error) func(context.Context, toolset.Question) (toolset.Answer, error) {
		return func(context.Context, toolset.Question) (toolset.Answer, error) { return a, err }
	}
	for _, tc := range []struct {
		name  string
		tool  string
		args  map[string]any
		hooks toolset.Hooks
	}{
		{"allow", toolset.RunCommand, map[string]any{"command": "echo hi; ls"}, toolset.Hooks{}},
		{"allow exit 2", toolset.RunCommand, map[string]any{"command": "ls no-such-file"}, toolset.Hooks{}},
		{"ask no approver, exit", toolset.RunCommand, map[string]any{"command": "echo oops >&2; exit 3"}, toolset.Hooks{}},
		{"deny", toolset.RunCommand, map[string]any{"command": "ls; rm -rf /"}, toolset.Hooks{}},
		{"ask approved", toolset.RunCommand, map[string]any{"command": "touch approved && echo made"}, toolset.Hooks{Approve: approve(toolset.Answer{Approved: true}, nil)}},
		{"ask declined", toolset.RunCommand, map[string]any{"command": "touch declined"}, toolset.Hooks{Approve: approve(toolset.Answer{Reason: "not on a Friday"}, nil)}},
		{"ask declined without reason", toolset.RunCommand, map[string]any{"command": "touch declined2"}, toolset.Hooks{Approve: approve(toolset.Answer{}, nil)}},
		{"ask no approver", toolset.RunCommand, map[string]any{"command": "touch nobody"}, toolset.Hooks{}},
		{"ask approver fails", toolset.RunCommand, map[string]any{"command": "touch failing"}, toolset.Hooks{Approve: approve(toolset.Answer{}, errors.New("the approval service is down"))}},
		{"ask by interrupt", toolset.RunCommand, map[string]any{"command": "touch later"}, toolset.Hooks{Interrupt: true}},
		{"ask by interrupt answered", toolset.RunCommand, map[string]any{"command": "touch answered"}, toolset.Hooks{Interrupt: true, Answer: &toolset.Answer{Command: "touch answered", Reason: "no"}}},
		{"bash ask no approver", toolset.BashTool, map[string]any{"command": "touch bash-nobody"}, toolset.Hooks{}},
		{"bash ask approver fails", toolset.BashTool, map[string]any{"command": "touch bash-failing"}, toolset.Hooks{Approve: approve(toolset.Answer{}, mcpserver.ErrNoElicitation)}},
		{"start ask declined", toolset.StartCommand, map[string]any{"command": "touch started-job"}, toolset.Hooks{Approve: approve(toolset.Answer{Reason: "no jobs today"}, nil)}},
		{"bad argument type", toolset.RunCommand, map[string]any{"command": 5}, toolset.Hooks{}},
		{"missing argument", toolset.RunCommand, map[string]any{}, toolset.Hooks{}},
		{"unknown argument", toolset.RunCommand, map[string]any{"command": "echo", "bogus": true}, toolset.Hooks{}},
		{"timeout out of range", toolset.RunCommand, map[string]any{"command": "echo", "timeout_seconds": -4}, toolset.Hooks{}},
		{"empty command", toolset.RunCommand, map[string]any{"command": "  "}, toolset.Hooks{}},
		{"NUL byte", toolset.RunCommand, map[string]any{"command": "echo a\x00b"}, toolset.Hooks{}},
		{"command too long for the kernel", toolset.RunCommand, map[string]any{"command": "echo " + strings.Repeat("x", 200<<10)}, toolset.Hooks{}},
		{"bash NUL byte", toolset.BashTool, map[string]any{"command": "echo a\x00b"}, toolset.Hooks{}},
		{"unknown job ID", toolset.CheckCommand, map[string]any{"command_id": "nope"}, toolset.Hooks{}},
		{"unknown job ID wait", toolset.WaitCommand, map[string]any{"command_id": strings.Repeat("ab", 16), "timeout_seconds": 1}, toolset.Hooks{}},
		{"unknown job ID stop", toolset.StopCommand, map[string]any{"command_id": "j-unknown"}, toolset.Hooks{}},
		{"send input unknown job", toolset.SendInput, map[string]any{"command_id": "nope", "input": "x"}, toolset.Hooks{}},
		{"list", toolset.ListCommands, map[string]any{}, toolset.Hooks{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			conv := "conv-" + sanitize(tc.name)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := remote.Call(ctx, remote.Conversation(conv), tc.tool, raw, tc.hooks)
			if err != nil {
				t.Fatal(err)
			}
			want, err := local.Call(ctx, local.Conversation(conv), tc.tool, raw, tc.hooks)
			if err != nil {
				t.Fatal(err)
			}
			g, w := blank(got.ModelText(), ref.Path), blank(want.ModelText(), twin)
			if g != w || got.IsError != want.IsError || !reflect.DeepEqual(got.Pending, want.Pending) {
				t.Errorf("through the front door (error %v, pending %+v):\n%s\nlocally (error %v, pending %+v):\n%s",
					got.IsError, got.Pending, g, want.IsError, want.Pending, w)
			}
		})
	}

	// An answer the user asked to remember holds for the rest of the
	// conversation, on both sides: the second call is not asked about.
	t.Run("ask remembered", func(t *testing.T) {
		for _, side := range []struct {
			name string
			ts   *toolset.Toolset
		}{{"front door", remote}, {"local", local}} {
			asked := 0
			hooks := toolset.Hooks{Approve: func(context.Context, toolset.Question) (toolset.Answer, error) {
				asked++
				return toolset.Answer{Approved: true, Remember: true}, nil
			}}
			var texts []string
			for range 2 {
				res, err := side.ts.Call(context.Background(), side.ts.Conversation("remember"), toolset.RunCommand, json.RawMessage(`{"command":"touch remembered && echo ok"}`), hooks)
				if err != nil {
					t.Fatal(err)
				}
				texts = append(texts, res.Text)
			}
			if asked != 1 || texts[0] != texts[1] || !strings.Contains(texts[1], "ok") {
				t.Errorf("%s: asked %d times, want once; texts %q", side.name, asked, texts)
			}
		}
	})

	// Through MCP: a client that cannot elicit. The local MCP server's
	// hooks refuse with mcpserver.ErrNoElicitation.
	t.Run("mcp client without elicitation", func(t *testing.T) {
		endpoint, _ := serveFrontDoor(t, e.c, ref)
		cs := connectMCP(t, endpoint, "", legacyProtocol, nil)
		got, isErr, _ := callText(t, cs, toolset.RunCommand, map[string]any{"command": "touch mcp-nobody"})
		raw, _ := json.Marshal(map[string]any{"command": "touch mcp-nobody"})
		want, err := local.Call(context.Background(), nil, toolset.RunCommand, raw, toolset.Hooks{Approve: approve(toolset.Answer{}, mcpserver.ErrNoElicitation)})
		if err != nil {
			t.Fatal(err)
		}
		if g, w := blank(got, ref.Path), blank(want.ModelText(), twin); g != w || isErr != want.IsError {
			t.Errorf("through the front door (error %v):\n%s\nlocally (error %v):\n%s", isErr, g, want.IsError, w)
		}
	})
}

// blank replaces the workspace path and saved-output file names, which
// differ between the twins.
func blank(s, ws string) string {
	return normalize(strings.ReplaceAll(s, ws, "WS"))
}

// TestFrontDoorShareJobs: a front door whose conversations see every job
// (ShareJobs, or a stdio client's SeeAllJobs) lists, in one conversation,
// the job another started, as a local toolset does; without it a
// conversation lists only its own.
func TestFrontDoorShareJobs(t *testing.T) {
	e := newEnv(t)
	ref := e.host("fd-share-"+sanitize(t.Name()), nil)
	fd, err := NewFrontDoor(e.c, FrontDoorOptions{Workspaces: []WorkspaceRef{ref}})
	if err != nil {
		t.Fatal(err)
	}
	remote := func(share bool) *toolset.Toolset {
		ts, err := toolset.New(toolset.Options{Remote: fd, ShareJobs: share})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ts.Close() })
		return ts
	}
	shared, private := remote(true), remote(false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	started, err := private.Call(ctx, private.Conversation("starter"), toolset.StartCommand, json.RawMessage(`{"command":"sleep 30"}`), toolset.Hooks{})
	if err != nil || started.IsError {
		t.Fatalf("start_command: %+v, %v", started, err)
	}
	id := started.Structured.(json.RawMessage)
	var job struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(id, &job); err != nil || job.ID == "" {
		t.Fatalf("start_command's structured result %s", id)
	}
	defer private.Call(context.Background(), private.Conversation("starter"), toolset.StopCommand, json.RawMessage(`{"command_id":"`+job.ID+`"}`), toolset.Hooks{})
	for _, tc := range []struct {
		ts   *toolset.Toolset
		conv string
		sees bool
	}{{shared, "other-shared", true}, {private, "other-private", false}, {private, "starter", true}} {
		res, err := tc.ts.Call(ctx, tc.ts.Conversation(tc.conv), toolset.ListCommands, nil, toolset.Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, job.ID) != tc.sees {
			t.Errorf("conversation %s lists the job: %v, want %v:\n%s", tc.conv, !tc.sees, tc.sees, res.Text)
		}
	}
}
