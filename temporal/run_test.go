//go:build linux

package temporal

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/shellcap/shellcap"
)

// routeWorkflow runs the same command in each workspace.
func routeWorkflow(ctx workflow.Context, refs []WorkspaceRef, command string) ([]Result, error) {
	var out []Result
	for _, ws := range refs {
		r, err := Run(ctx, ws, Request{Command: command})
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// TestRouting: two workers on two host queues; each command lands on the
// host of its workspace, and a workspace named on the wrong host is
// refused, not run.
func TestRouting(t *testing.T) {
	e := newEnv(t, routeWorkflow, runWorkflow)
	alpha := e.host("alpha-"+sanitize(t.Name()), nil)
	beta := e.host("beta-"+sanitize(t.Name()), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []Result
	if err := e.start(ctx, routeWorkflow, []WorkspaceRef{alpha, beta, alpha}, `printf '%s %s' "$SHELLCAP_TEST_HOST" "$PWD"`).Get(ctx, &got); err != nil {
		t.Fatal(err)
	}
	for i, ws := range []WorkspaceRef{alpha, beta, alpha} {
		if want := ws.Host + " " + ws.Path; got[i].Stdout != want || got[i].Host != ws.Host {
			t.Errorf("call %d for %s: ran on %q (Result.Host %q), want %q", i, ws, got[i].Stdout, got[i].Host, want)
		}
	}

	wrong := WorkspaceRef{Host: beta.Host, Path: alpha.Path}
	var r Result
	err := e.start(ctx, runWorkflow, wrong, Request{Command: "echo should not run"}).Get(ctx, &r)
	app := applicationError(err, KindUnknownWorkspace)
	if app == nil || !app.NonRetryable() || !strings.Contains(app.Message(), alpha.Path) {
		t.Fatalf("a workspace the host does not serve: %v, want a non-retryable %s naming it", err, KindUnknownWorkspace)
	}
}

// libraryResult runs req on a Shell of opts directly, for comparison.
func libraryResult(t *testing.T, opts shellcap.Options, req shellcap.Request) *shellcap.Result {
	t.Helper()
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	res, err := sh.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// comparable blanks what differs between two runs of one command: the
// timing, and the names of kept output files (random), in the fields and
// in the text.
func comparable(r Result, workspace string) Result {
	blank := func(s string) string {
		return keptName.ReplaceAllString(strings.ReplaceAll(s, workspace, "<ws>"), "<kept>")
	}
	r.Text, r.Stdout, r.Stderr = blank(r.Text), blank(r.Stdout), blank(r.Stderr)
	r.StdoutFile, r.StderrFile, r.Cwd = blank(r.StdoutFile), blank(r.StderrFile), blank(r.Cwd)
	r.Notes = append([]string(nil), r.Notes...)
	for i := range r.Notes {
		r.Notes[i] = blank(r.Notes[i])
	}
	r.Duration, r.Host = 0, ""
	return r
}

// keptName matches the name of a kept output file (a time and a random
// part).
var keptName = regexp.MustCompile(`[0-9]{8}-[0-9]{6}-[0-9a-f]{12}`)

// TestResultMatchesLibrary: exit codes, output, truncation and the text
// through Run are the library's, field by field.
func TestResultMatchesLibrary(t *testing.T) {
	e := newEnv(t, runWorkflow)
	opts := func(ws string) shellcap.Options {
		return shellcap.Options{Workspace: ws, MaxOutputChars: 300, StdoutBudget: shellcap.Budget{Head: 50, Tail: 50}}
	}
	ref := e.host("same-"+sanitize(t.Name()), func(o *WorkerOptions) { o.Shell = opts })
	lib := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"ok", Request{Command: "echo hi"}},
		{"exit", Request{Command: "echo out; echo err >&2; exit 3"}},
		{"signal", Request{Command: "kill -TERM $$"}},
		{"timeout", Request{Command: "echo start; sleep 5", Timeout: 300 * time.Millisecond}},
		{"truncated", Request{Command: "seq 1 2000; seq 1 300 >&2; exit 1"}},
		{"stdin", Request{Command: "tr a-z A-Z", Stdin: []byte("hello\n")}},
		{"binary stdin", Request{Command: "od -An -tx1", Stdin: []byte{0xff, 0, 0xc3, '\n'}}},
		{"dir and env", Request{Command: "mkdir -p sub && cd sub && pwd; echo $FOO", Env: map[string]string{"FOO": "bar"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := shellcap.Request{Command: tc.req.Command, Timeout: tc.req.Timeout, Env: tc.req.Env}
			if tc.req.Stdin != nil {
				req.Stdin = bytes.NewReader(tc.req.Stdin)
			}
			want := comparable(resultOf(libraryResult(t, opts(lib), req), ""), lib)
			var got Result
			if err := e.start(ctx, runWorkflow, ref, tc.req).Get(ctx, &got); err != nil {
				t.Fatal(err)
			}
			got = comparable(got, ref.Path)
			if got.Text != want.Text {
				t.Errorf("text through Run:\n%s\nthe library's:\n%s", got.Text, want.Text)
			}
			if g, w := fmtResult(got), fmtResult(want); g != w {
				t.Errorf("result through Run:\n%s\nthe library's:\n%s", g, w)
			}
		})
	}
}

func fmtResult(r Result) string {
	r.Timeout = r.Timeout.Round(time.Millisecond)
	return sprint(r)
}

// TestDenialNotRetried: a command the policy denies fails its activity
// once, non-retryably, and the workflow gets a *Refusal whose text is the
// library's and which matches shellcap.ErrDenied.
func TestDenialNotRetried(t *testing.T) {
	counter := &attemptCounter{}
	e := newEnv(t, denialWorkflow)
	ref := e.host("deny-"+sanitize(t.Name()), func(o *WorkerOptions) { o.Worker.Interceptors = append(o.Worker.Interceptors, counter) })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tc := range []struct {
		command string
		kind    string
		is      error
	}{
		{"rm -rf build", KindDenied, shellcap.ErrDenied},
		{"echo a\x00b", KindBadRequest, shellcap.ErrNULByte},
		{"   ", KindBadRequest, shellcap.ErrEmptyCommand},
	} {
		counter.reset()
		var got refusalReport
		if err := e.start(ctx, denialWorkflow, ref, Request{Command: tc.command}).Get(ctx, &got); err != nil {
			t.Fatal(err)
		}
		want := libraryResult(t, shellcap.Options{Workspace: t.TempDir()}, shellcap.Request{Command: tc.command})
		if got.Kind != tc.kind || got.Text != want.Text() || !got.Is {
			t.Errorf("%q: refusal %+v, want kind %s, text %q, matching %v", tc.command, got, tc.kind, want.Text(), tc.is)
		}
		if n := counter.count(ActivityRun); n != 1 {
			t.Errorf("%q: %d attempts, want 1", tc.command, n)
		}
	}
}

type refusalReport struct {
	Kind, Text string
	Is         bool
}

// denialWorkflow reports the refusal Run returned, as the workflow sees it.
func denialWorkflow(ctx workflow.Context, ws WorkspaceRef, req Request) (refusalReport, error) {
	_, err := Run(WithCallOptions(ctx, CallOptions{RetryPolicy: &sdktemporal.RetryPolicy{InitialInterval: 100 * time.Millisecond, MaximumAttempts: 5}}), ws, req)
	var r *Refusal
	if !errors.As(err, &r) {
		return refusalReport{}, err
	}
	is := errors.Is(err, shellcap.ErrDenied) || errors.Is(err, shellcap.ErrNULByte) || errors.Is(err, shellcap.ErrEmptyCommand)
	return refusalReport{Kind: r.Kind, Text: r.Text, Is: is}, nil
}

// applicationError finds the application error of type kind in err's
// chain (a workflow's failure wraps its activity's).
func applicationError(err error, kind string) *sdktemporal.ApplicationError {
	for ; err != nil; err = errors.Unwrap(err) {
		if app, ok := err.(*sdktemporal.ApplicationError); ok && app.Type() == kind {
			return app
		}
	}
	return nil
}
