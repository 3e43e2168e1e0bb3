package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/client"
	sdktemporal "go.temporal.io/sdk/temporal"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// TestTrackerTail: the tail keeps the last TailBytes of both streams as
// they arrived, starts on a UTF-8 boundary, and the counts are per stream.
func TestTrackerTail(t *testing.T) {
	tr := newTracker()
	tr.output(shellcap.Stdout, []byte(strings.Repeat("é", TailBytes))) // 2 bytes each
	tr.output(shellcap.Stderr, []byte("x"))
	p := tr.progress()
	if p.StdoutBytes != 2*TailBytes || p.StderrBytes != 1 {
		t.Fatalf("counts %d+%d", p.StdoutBytes, p.StderrBytes)
	}
	if !utf8.ValidString(p.Tail) || len(p.Tail) > TailBytes || !strings.HasSuffix(p.Tail, "éx") {
		t.Fatalf("tail of %d bytes, valid %v, ends %q", len(p.Tail), utf8.ValidString(p.Tail), p.Tail[len(p.Tail)-4:])
	}
	tr.output(shellcap.Stdout, []byte(strings.Repeat("a", 3*TailBytes)))
	if p := tr.progress(); p.Tail != strings.Repeat("a", TailBytes) {
		t.Fatalf("a long write's tail: %d bytes", len(p.Tail))
	}
}

// TestRefusalRoundTrip: what an activity refuses with comes back to the
// workflow as a *Refusal of the same kind and text, matching the host's
// sentinel with errors.Is and unwrapping to the Temporal error.
func TestRefusalRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		cause error
		kind  string
	}{
		{&shellcap.PolicyError{Kind: shellcap.ErrDenied, Msg: "no"}, KindDenied},
		{&shellcap.PolicyError{Kind: shellcap.ErrNotApproved, Msg: "ask"}, KindNotApproved},
		{&shellcap.RequestError{Kind: shellcap.ErrNULByte}, KindBadRequest},
		{&shellcap.RequestError{Kind: shellcap.ErrTimeoutRange, Msg: "too long"}, KindBadRequest},
		{&shellcap.StartError{Err: errors.New("no fork")}, KindSpawn},
		{fmt.Errorf("x: %w", jobs.ErrUnknownID), KindUnknownJob},
		{fmt.Errorf("x: %w", jobs.ErrNoStdin), KindJob},
		{fmt.Errorf("x: %w", shellcap.ErrSandbox), KindSandbox},
		{fmt.Errorf("x: %w", jobs.ErrIDConflict), KindJob},
	} {
		text := "the model's text for " + tc.cause.Error()
		err := refuse(text, tc.cause)
		var app *sdktemporal.ApplicationError
		if !errors.As(err, &app) || !app.NonRetryable() || app.Type() != tc.kind {
			t.Errorf("%v: %v, want a non-retryable %s", tc.cause, err, tc.kind)
			continue
		}
		// As a workflow sees it: the application error travels by its
		// type, message and details.
		got := refusalOf(sdktemporal.NewNonRetryableApplicationError(app.Message(), app.Type(), nil, detailsOf(t, app)))
		var r *Refusal
		if !errors.As(got, &r) || r.Kind != tc.kind || r.Text != text || r.Error() != text {
			t.Errorf("%v: came back as %#v", tc.cause, got)
			continue
		}
		for _, s := range sentinels {
			if errors.Is(tc.cause, s) != errors.Is(got, s) {
				t.Errorf("%v: errors.Is(%v) is %v on the host, %v in the workflow", tc.cause, s, errors.Is(tc.cause, s), errors.Is(got, s))
			}
		}
		if !errors.As(got, &app) {
			t.Errorf("%v: the refusal does not unwrap to the Temporal error", tc.cause)
		}
	}
	other := errors.New("infrastructure")
	if refusalOf(other) != other {
		t.Fatal("an error that is not a refusal changed")
	}
}

func detailsOf(t *testing.T, app *sdktemporal.ApplicationError) refusalDetails {
	t.Helper()
	var d refusalDetails
	if err := app.Details(&d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestCallBudget: a tool call's activity budget follows its timeout
// argument, else its tool's longest default: for run_command and bash the
// workspace's MaxTimeout when its limits are known.
func TestCallBudget(t *testing.T) {
	long := &Description{DefaultTimeout: 20 * time.Minute, MaxTimeout: time.Hour}
	for _, tc := range []struct {
		tool   string
		args   string
		want   time.Duration
		limits *Description
	}{
		{toolset.RunCommand, `{"command":"x"}`, time.Hour, long},
		{toolset.BashTool, `{"command":"x"}`, time.Hour, long},
		{toolset.RunCommand, `{"command":"x","timeout_seconds":90}`, 90 * time.Second, long},
		{toolset.ShellTool, `{"command":"x"}`, jobs.MaxShellTimeout, long},
		{toolset.RunCommand, `{"command":"x"}`, shellcap.DefaultMaxTimeout, &Description{}},
		{toolset.RunCommand, `{"command":"x","timeout_seconds":90}`, 90 * time.Second, nil},
		{toolset.RunCommand, `{"command":"x"}`, shellcap.DefaultMaxTimeout, nil},
		{toolset.BashTool, `{"command":"x","timeout_seconds":1.5}`, 1500 * time.Millisecond, nil},
		{toolset.WaitCommand, `{"command_id":"x","timeout_seconds":600}`, 10 * time.Minute, nil},
		{toolset.ShellTool, `{"command":"x","timeout":12}`, 12 * time.Second, nil},
		{toolset.ShellTool, `{"command":"x"}`, jobs.MaxShellTimeout, nil},
		{toolset.RunCommand, `{"timeout_seconds":-3}`, shellcap.DefaultMaxTimeout, nil},
		{toolset.RunCommand, `not json`, shellcap.DefaultMaxTimeout, nil},
		{toolset.ListCommands, `{}`, shortCall, nil},
	} {
		if got := callBudget(ToolCall{Tool: tc.tool, Args: json.RawMessage(tc.args)}, tc.limits); got != tc.want {
			t.Errorf("%s %s: budget %v, want %v", tc.tool, tc.args, got, tc.want)
		}
	}
}

// quietLogger is a Temporal logger that drops everything.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}

// TestParseWorkspace: a workspace is HOST:PATH with a host a task queue can
// be named after and an absolute, clean path; anything else is refused
// with a message naming what is wrong.
func TestParseWorkspace(t *testing.T) {
	long := strings.Repeat("h", 65)
	for _, tc := range []struct {
		in      string
		want    WorkspaceRef
		err     string
		badHost bool
	}{
		{in: "build1:/srv/repo", want: WorkspaceRef{Host: "build1", Path: "/srv/repo"}},
		{in: "a.b_c-D9:/", want: WorkspaceRef{Host: "a.b_c-D9", Path: "/"}},
		{in: "h:/a/b:c", want: WorkspaceRef{Host: "h", Path: "/a/b:c"}},
		{in: "/srv/repo", err: "want HOST:PATH"},
		{in: ":/srv/repo", err: `invalid workspace host ""`, badHost: true},
		{in: "build 1:/srv", err: `invalid workspace host "build 1": a host name is 1-64`, badHost: true},
		{in: "héte:/srv", err: "invalid workspace host", badHost: true},
		{in: long + ":/srv", err: "a host name is 1-64", badHost: true},
		{in: "h:srv", err: `invalid workspace path "srv" on host h`},
		{in: "h:/srv/../etc", err: "must be absolute and clean"},
		{in: "h:", err: "must be absolute and clean"},
	} {
		got, err := ParseWorkspace(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want || got.TaskQueue() != "shellcap-host-"+tc.want.Host {
				t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || errors.Is(err, ErrInvalidHost) != tc.badHost {
			t.Errorf("%q: %v; want an error with %q (a bad host: %v)", tc.in, err, tc.err, tc.badHost)
		}
	}
	lazy, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: quietLogger{}}) // never dials
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if _, err := NewWorker(lazy, WorkerOptions{Host: long}); !errors.Is(err, ErrInvalidHost) {
		t.Errorf("NewWorker with a 65-byte host: %v, want ErrInvalidHost", err)
	}
}
