//go:build linux

package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// TestEmptyCommandRefusedEverywhere: an empty or whitespace-only command
// is refused by Start, ShellTool (both modes) and Run (promotion) with the
// Shell's ErrEmptyCommand and "The command is empty.", has no exit code in
// JSON, and starts no job.
func TestEmptyCommandRefusedEverywhere(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	type result interface{ Text() string }
	check := func(name string, r result, err, got error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !errors.Is(got, shellcap.ErrEmptyCommand) || r.Text() != "The command is empty." {
			t.Errorf("%s: Err = %v, Text = %q", name, got, r.Text())
		}
		data, jerr := json.Marshal(r)
		if jerr != nil {
			t.Fatal(jerr)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil {
			t.Fatal(err)
		}
		if code, ok := fields["exit_code"]; ok && code != nil {
			t.Errorf("%s: exit_code %v in %s", name, code, data)
		}
		if inner, ok := fields["result"].(map[string]any); ok {
			if code, ok := inner["exit_code"]; !ok || code != nil {
				t.Errorf("%s: result.exit_code %v in %s", name, code, data)
			}
		}
	}
	for _, c := range []string{"", "   ", "\t\n "} {
		s, err := m.Start(ctx, jobs.StartRequest{Command: c})
		check("Start "+c, s, err, s.Err)
		if s.ID != "" {
			t.Errorf("Start(%q) started job %q", c, s.ID)
		}
		for _, mode := range []jobs.ShellMode{jobs.Foreground, jobs.Background} {
			sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: c, Mode: mode})
			check("ShellTool "+string(mode)+" "+c, sr, err, sr.Err)
		}
		rr, err := m.Run(ctx, shellcap.Request{Command: c}, time.Second)
		if err != nil || rr.Result == nil || rr.Promoted {
			t.Fatalf("Run(%q): %v %+v", c, err, rr)
		}
		check("Run "+c, rr, err, rr.Result.Err)
	}
	l, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Jobs) != 0 {
		t.Errorf("empty commands started jobs: %s", l.Text())
	}
}

// TestInputRefusalsMatchSentinels: Input on a job whose stdin was closed,
// on a finished job and to a job that does not read report
// ErrStdinClosed, ErrJobFinished and ErrInputTimeout through errors.Is.
func TestInputRefusalsMatchSentinels(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "cat >/dev/null; sleep 300", Stdin: true})
	if in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "x", EOF: true}); err != nil || in.Err != nil {
		t.Fatalf("first Input: %v %+v", err, in)
	}
	in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "y"})
	if err != nil || !errors.Is(in.Err, jobs.ErrStdinClosed) || in.Text() != in.Err.Error() {
		t.Errorf("Input after EOF: %v Err = %v Text = %q", err, in.Err, in.Text())
	}
	done := start(t, m, jobs.StartRequest{Command: "true", Stdin: true})
	if w, err := m.Wait(ctx, done, 30*time.Second); err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %+v", err, w)
	}
	in, err = m.Input(ctx, jobs.InputRequest{ID: done, Text: "z"})
	if err != nil || !errors.Is(in.Err, jobs.ErrJobFinished) || in.Text() != in.Err.Error() {
		t.Errorf("Input to a finished job: %v Err = %v Text = %q", err, in.Err, in.Text())
	}
	idle := start(t, m, jobs.StartRequest{Command: "sleep 300", Stdin: true})
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	in, err = m.Input(short, jobs.InputRequest{ID: idle, Text: strings.Repeat("x", 1<<20)})
	if err != nil || !errors.Is(in.Err, jobs.ErrInputTimeout) || in.Text() != in.Err.Error() {
		t.Errorf("Input to a job that does not read: %v Err = %v Text = %q", err, in.Err, in.Text())
	}
}
