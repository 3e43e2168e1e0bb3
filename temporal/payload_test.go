//go:build linux

package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
)

// badInputWorkflow calls the workflow-side function named by field with a
// byte in it that is not UTF-8 (built inside the workflow: its own input
// travels as JSON too), and returns the refusal's text.
func badInputWorkflow(ctx workflow.Context, ws WorkspaceRef, field string) (string, error) {
	const bad = "\xff"
	var err error
	switch field {
	case "command":
		_, err = Run(ctx, ws, Request{Command: "echo " + bad})
	case "dir":
		_, err = Run(ctx, ws, Request{Command: "pwd", Dir: "sub" + bad})
	case "env":
		_, err = Run(ctx, ws, Request{Command: "true", Env: map[string]string{"X": bad}})
	case "start":
		_, err = Start(ctx, ws, StartRequest{Command: "echo " + bad})
	case "too large":
		_, err = Run(ctx, ws, Request{Command: "wc -c", Stdin: make([]byte, MaxRequestBytes)})
		var r *Refusal
		if !errors.As(err, &r) || !errors.Is(err, ErrRequestTooLarge) {
			return "", errors.New("no ErrRequestTooLarge refusal")
		}
		return r.Text, nil
	case "conversation":
		_, err = Call(ctx, ws, ToolCall{Tool: "run_command", Conversation: "c" + bad, Args: []byte(`{"command":"true"}`)})
	}
	var r *Refusal
	if !errors.As(err, &r) {
		return "", errors.New("no refusal: " + field)
	}
	if !errors.Is(err, shellcap.ErrInvalidUTF8) {
		return "", errors.New("the refusal does not match shellcap.ErrInvalidUTF8: " + r.Text)
	}
	return r.Text, nil
}

// Temporal carries activity input as JSON, which would replace a byte that
// is not UTF-8 with U+FFFD and run a command nobody asked for, and fails
// the workflow over its payload limit. The workflow-side functions refuse
// such input before scheduling anything: a command with the library's own
// text, any other field by name, an input too large with its size.
func TestBadInputIsRefusedNotChanged(t *testing.T) {
	e := newEnv(t, badInputWorkflow)
	ref := e.host("utf8-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lib := libraryResult(t, shellcap.Options{Workspace: t.TempDir()}, shellcap.Request{Command: "echo \xff"})
	for field, want := range map[string]string{
		"command":      lib.Text(),
		"start":        lib.Text(),
		"dir":          "request.dir is not valid UTF-8",
		"env":          "request.env.X is not valid UTF-8",
		"conversation": "call.conversation is not valid UTF-8",
		"too large":    "The request is 1398",
	} {
		t.Run(field, func(t *testing.T) {
			run := e.start(ctx, badInputWorkflow, ref, field)
			var got string
			if err := run.Get(ctx, &got); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, want) {
				t.Errorf("refusal %q, want it to start with %q", got, want)
			}
			hist := e.c.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for hist.HasNext() {
				ev, err := hist.Next()
				if err != nil {
					t.Fatal(err)
				}
				if ev.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED {
					t.Fatalf("an activity was scheduled for input JSON would change")
				}
			}
		})
	}
}

// The front door's path refuses an input too large for Temporal as a
// result the model can act on, before any update is sent.
func TestCallSessionRefusesTooLarge(t *testing.T) {
	e := newEnv(t)
	ref := e.host("big-call-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args, _ := json.Marshal(map[string]string{"command": "echo " + strings.Repeat("x", MaxRequestBytes)})
	res, err := CallSession(ctx, e.c, ref, ToolCall{Conversation: "c1", Tool: "run_command", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.HasPrefix(res.Text, "The request is ") {
		t.Fatalf("result %+v", res)
	}
	if _, err := e.c.DescribeWorkflowExecution(ctx, SessionWorkflowID(ref), ""); err == nil {
		t.Fatalf("the session workflow was started for a call that was refused")
	}
}
