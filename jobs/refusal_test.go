//go:build linux

package jobs_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// TestRefusalShape: every result type reports a refusal as Err, matchable
// with errors.Is against shellcap's sentinels (what the Shell refuses) or
// this package's (what the Manager refuses); Text is the message; JSON
// has it as "error" and no exit code (absent or null, never 0).
func TestRefusalShape(t *testing.T) {
	m := newManager(t, jobs.Options{MaxJobs: 1})
	ctx := ctxFor(t)
	running := start(t, m, jobs.StartRequest{Command: "sleep 300"})
	const unknown = "0123456789abcdef0123456789abcdef"

	type result interface{ Text() string }
	check := func(name string, r result, err error, got error, want error, text string) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !errors.Is(got, want) {
			t.Errorf("%s: Err = %v, want errors.Is %v", name, got, want)
			return
		}
		if r.Text() != got.Error() || (text != "" && !strings.Contains(r.Text(), text)) {
			t.Errorf("%s: Text = %q, Err = %q (want it to contain %q)", name, r.Text(), got, text)
		}
		data, jerr := json.Marshal(r)
		if jerr != nil {
			t.Fatalf("%s: %v", name, jerr)
		}
		var fields map[string]any
		if err := json.Unmarshal(data, &fields); err != nil {
			t.Fatal(err)
		}
		if fields["error"] != got.Error() {
			t.Errorf("%s: JSON error = %v, want %q (%s)", name, fields["error"], got.Error(), data)
		}
		if code, ok := fields["exit_code"]; ok && code != nil {
			t.Errorf("%s: JSON exit_code = %v for a refusal (%s)", name, code, data)
		}
	}

	s, err := m.Start(ctx, jobs.StartRequest{Command: "rm -rf x"})
	check("Start denied", s, err, s.Err, shellcap.ErrDenied, "")
	s, err = m.Start(ctx, jobs.StartRequest{Command: "echo a\x00b"})
	check("Start NUL", s, err, s.Err, shellcap.ErrNULByte, "NUL byte")
	s, err = m.Start(ctx, jobs.StartRequest{Command: "true", Dir: "../.."})
	check("Start outside", s, err, s.Err, shellcap.ErrWorkdirOutside, "")
	s, err = m.Start(ctx, jobs.StartRequest{Command: "sleep 1"})
	check("Start over MaxJobs", s, err, s.Err, jobs.ErrTooManyJobs, "1 background commands are already running")

	c, err := m.Check(ctx, jobs.CheckRequest{ID: unknown})
	check("Check unknown", c, err, c.Err, jobs.ErrUnknownID, "[Error: unknown command ID '"+unknown+"']")
	w, err := m.Wait(ctx, "../x", time.Second)
	check("Wait malformed", w, err, w.Err, jobs.ErrUnknownID, "unknown command ID")
	w, err = m.Wait(ctx, running, -time.Second)
	check("Wait negative", w, err, w.Err, shellcap.ErrTimeoutRange, "")
	st, err := m.Stop(ctx, jobs.StopRequest{ID: unknown})
	check("Stop unknown", st, err, st.Err, jobs.ErrUnknownID, "")

	in, err := m.Input(ctx, jobs.InputRequest{ID: unknown, Text: "x"})
	check("Input unknown", in, err, in.Err, jobs.ErrUnknownID, "")
	in, err = m.Input(ctx, jobs.InputRequest{ID: running, Text: "x"})
	check("Input no pipe", in, err, in.Err, jobs.ErrNoStdin, "was not started with stdin")

	sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "rm -rf x"})
	check("Shell denied", sr, err, sr.Err, shellcap.ErrDenied, "")
	sr, err = m.ShellTool(ctx, jobs.ShellRequest{Command: "true", Mode: "sideways"})
	check("Shell mode", sr, err, sr.Err, jobs.ErrBadMode, "mode must be")
	sr, err = m.ShellTool(ctx, jobs.ShellRequest{Command: "true", Timeout: time.Hour})
	check("Shell timeout", sr, err, sr.Err, shellcap.ErrTimeoutRange, "")
	sr, err = m.ShellTool(ctx, jobs.ShellRequest{Command: "true"})
	check("Shell over MaxJobs", sr, err, sr.Err, jobs.ErrTooManyJobs, "")

	rr, err := m.Run(ctx, shellcap.Request{Command: "rm -rf x"}, time.Second)
	if err != nil || rr.Result == nil || rr.Promoted {
		t.Fatalf("Run denied: %v %+v", err, rr)
	}
	// shellcap.Result's own JSON (its exit_code) is the root package's.
	if !errors.Is(rr.Result.Err, shellcap.ErrDenied) || rr.Text() != rr.Result.Err.Error() {
		t.Errorf("Run denied: Err = %v, Text = %q", rr.Result.Err, rr.Text())
	}
	rr, err = m.Run(ctx, shellcap.Request{Command: "true"}, time.Second)
	if err != nil || rr.Result == nil {
		t.Fatalf("Run over MaxJobs: %v %+v", err, rr)
	}
	if !errors.Is(rr.Result.Err, jobs.ErrTooManyJobs) || rr.Text() != rr.Result.Err.Error() {
		t.Errorf("Run over MaxJobs: Err = %v, Text = %q", rr.Result.Err, rr.Text())
	}
}
