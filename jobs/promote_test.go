//go:build linux

package jobs_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// TestRunFinishedMatchesShellRun runs the same commands through Shell.Run
// and through Manager.Run: a command that finishes in the foreground reads
// the same.
func TestRunFinishedMatchesShellRun(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	for _, cmd := range []string{"echo hi; exit 2", "true", "echo out; echo err >&2", "printf 'no newline'", "kill -TERM $$"} {
		want, err := sh.Run(ctx, shellcap.Request{Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Run(ctx, shellcap.Request{Command: cmd}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if got.Promoted || got.Text() != want.Text() {
			t.Errorf("%q: Manager.Run = %q (promoted %v), Shell.Run = %q", cmd, got.Text(), got.Promoted, want.Text())
		}
	}
	l, _ := m.List(ctx)
	if len(l.Jobs) != 0 {
		t.Fatalf("finished foreground commands left jobs: %s", l.Text())
	}
}

func TestRunPromotes(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	res, err := m.Run(ctx, shellcap.Request{Command: "echo early; sleep 1; echo late; sleep 300"}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Promoted || res.ID == "" || res.Result != nil {
		t.Fatalf("not promoted: %+v", res)
	}
	text := res.Text()
	if !strings.Contains(text, "continues in the background as command ID "+res.ID) || !strings.HasSuffix(text, "\n[status: running]") {
		t.Fatalf("promoted text = %q", text)
	}
	// new_only continues after what the model saw.
	seen := res.Stdout
	waitFor(t, "late output", func() bool {
		c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID, NewOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		seen += c.Stdout
		return strings.Contains(seen, "late")
	})
	if seen != "early\nlate\n" {
		t.Fatalf("output so far plus new_only checks = %q", seen)
	}
	s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
	if err != nil || *s.ExitCode != 143 {
		t.Fatalf("Stop: %v %+v", err, s)
	}
}

func TestRunTimeoutPrefixDelaysPromotion(t *testing.T) {
	m := newManager(t, jobs.Options{})
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "timeout 60 sleep 0.5; echo done"}, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Promoted || res.Text() != "[stdout]\ndone\n" {
		t.Fatalf("timeout-prefixed command = %q (promoted %v)", res.Text(), res.Promoted)
	}
}

func TestRunHardTimeout(t *testing.T) {
	m := newManager(t, jobs.Options{KillGrace: 100 * time.Millisecond})
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "echo start; sleep 300", Timeout: 300 * time.Millisecond}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if res.Promoted || res.Result == nil || !res.Result.TimedOut || res.Text() != "[stdout]\nstart\n\n[Command timed out after 0.3s]" {
		t.Fatalf("hard timeout = %q (%+v)", res.Text(), res)
	}
}

func TestRunRefused(t *testing.T) {
	m := newManager(t, jobs.Options{})
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "a\x00"}, time.Second)
	if err != nil || res.Result == nil || !strings.Contains(res.Text(), "NUL") {
		t.Fatalf("refused = %q, %v", res.Text(), err)
	}
}

// TestRunStdin copies Request.Stdin into the job: cat returns exactly the
// bytes, wc -c counts a whole MiB, and a command that reads nothing still
// finishes.
func TestRunStdin(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i*7 + i>>11) // every byte value, no period of 256
	}
	res, err := m.Run(ctx, shellcap.Request{Command: "wc -c", Stdin: bytes.NewReader(data)}, 0)
	if err != nil || res.Result == nil || res.Result.Stdout != "1048576\n" {
		t.Fatalf("wc -c = %q, %v", res.Text(), err)
	}
	res, err = m.Run(ctx, shellcap.Request{Command: "cat > copy.bin; echo copied", Stdin: bytes.NewReader(data)}, 0)
	if err != nil || res.Result == nil || res.Result.Stdout != "copied\n" {
		t.Fatalf("cat = %q, %v", res.Text(), err)
	}
	got, err := os.ReadFile(filepath.Join(res.Result.Cwd, "copy.bin"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("cat copied %d bytes (%v), want the %d bytes given", len(got), err, len(data))
	}
	res, err = m.Run(ctx, shellcap.Request{Command: "cat", Stdin: strings.NewReader("short\n")}, 0)
	if err != nil {
		t.Fatalf("cat: %v", err)
	}
	if res.Text() != "[stdout]\nshort\n" {
		t.Fatalf("cat = %q", res.Text())
	}
	res, err = m.Run(ctx, shellcap.Request{Command: "head -c 3", Stdin: bytes.NewReader(data)}, 0)
	if err != nil || res.Result == nil || res.Result.Stdout != string(data[:3]) {
		t.Fatalf("head -c 3 = %q, %v", res.Text(), err)
	}
}

// TestRunStdinAfterPromotion: the copy of Request.Stdin goes on after the
// command is promoted, through to end-of-file; meanwhile the job takes no
// Input.
func TestRunStdinAfterPromotion(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	pr, pw := io.Pipe()
	res, err := m.Run(ctx, shellcap.Request{Command: "echo ready; wc -c", Stdin: pr}, 10*time.Millisecond)
	if err != nil || !res.Promoted {
		t.Fatalf("Run = %+v, %v; want a promoted command", res, err)
	}
	in, err := m.Input(ctx, jobs.InputRequest{ID: res.ID, Text: "x"})
	if err != nil || !strings.Contains(in.Text(), "comes from its run request") {
		t.Fatalf("Input to a fed job = %q, %v", in.Text(), err)
	}
	if _, err := pw.Write(bytes.Repeat([]byte("z"), 100_000)); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	w, err := m.Wait(ctx, res.ID, jobs.MaxWait)
	if err != nil || w.Status != jobs.StatusFinished || !strings.HasSuffix(w.Stdout, "100000\n") {
		t.Fatalf("Wait = %q, %v", w.Text(), err)
	}
}

// TestRunStdinPromotedThenStopped: a promoted command that never reads
// its stdin is stopped; the copy of a large Request.Stdin ends with it.
func TestRunStdinPromotedThenStopped(t *testing.T) {
	m := newManager(t, jobs.Options{KillGrace: 200 * time.Millisecond})
	ctx := ctxFor(t)
	res, err := m.Run(ctx, shellcap.Request{Command: "sleep 300", Stdin: bytes.NewReader(make([]byte, 4<<20))}, 10*time.Millisecond)
	if err != nil || !res.Promoted {
		t.Fatalf("Run = %+v, %v; want a promoted command", res, err)
	}
	s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
	if err != nil || s.ExitCode == nil || *s.ExitCode != 143 {
		t.Fatalf("Stop = %q, %v", s.Text(), err)
	}
	// TestMain finds the copy's goroutine if it outlived the job.
}

// outputEvents records OnOutput calls and, through a gate file, lets the
// command go on only once its first line was passed on: a command that
// prints, waits for the gate, then prints again can only finish if the
// first chunk arrived while it was running.
type outputEvents struct {
	mu       sync.Mutex
	stdout   strings.Builder
	stderr   strings.Builder
	gate     string
	opened   bool
	returned bool // Run has returned
	late     int  // calls after Run returned
}

func (e *outputEvents) onOutput(stream shellcap.Stream, p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.returned {
		e.late++
	}
	switch stream {
	case shellcap.Stdout:
		e.stdout.Write(p)
	case shellcap.Stderr:
		e.stderr.Write(p)
	}
	if !e.opened && strings.Contains(e.stdout.String(), "first\n") {
		e.opened = true
		if err := os.WriteFile(e.gate, nil, 0o600); err != nil {
			panic(err)
		}
	}
}

func (e *outputEvents) runReturned() {
	e.mu.Lock()
	e.returned = true
	e.mu.Unlock()
}

// gated waits in the shell until the gate file exists.
const gated = `while [ ! -e gate ]; do sleep 0.01; done; `

// TestRunOnOutputWhileRunning: the first chunk reaches OnOutput while the
// command still runs (it cannot print "second" before), each stream in
// order, and everything printed is passed on exactly once.
func TestRunOnOutputWhileRunning(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{})
	ev := &outputEvents{gate: filepath.Join(sh.Workspace(), "gate")}
	res, err := m.Run(ctxFor(t), shellcap.Request{
		Command:  "echo first; echo e1 >&2; " + gated + "echo second; echo e2 >&2",
		OnOutput: ev.onOutput,
	}, 0)
	ev.runReturned()
	if err != nil || res.Promoted || res.Result == nil || res.Result.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if !ev.opened || ev.stdout.String() != "first\nsecond\n" || ev.stderr.String() != "e1\ne2\n" {
		t.Fatalf("OnOutput saw stdout %q stderr %q (gate opened %v)", ev.stdout.String(), ev.stderr.String(), ev.opened)
	}
	if res.Text() != "[stdout]\nfirst\nsecond\n\n[stderr]\ne1\ne2\n" {
		t.Fatalf("text %q", res.Text())
	}
}

// TestRunOnOutputStopsAtPromotion: once Run has returned a promoted
// command, OnOutput is not called again, although the command keeps
// printing.
func TestRunOnOutputStopsAtPromotion(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{})
	ev := &outputEvents{gate: filepath.Join(sh.Workspace(), "never-opened-by-output")}
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "echo before; " + gated + "echo after; sleep 300", OnOutput: ev.onOutput}, 200*time.Millisecond)
	ev.runReturned()
	if err != nil || !res.Promoted {
		t.Fatalf("Run = %+v, %v; want a promoted command", res, err)
	}
	if err := os.WriteFile(filepath.Join(sh.Workspace(), "gate"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitOutput(t, m, res.ID, "after")
	ev.mu.Lock()
	late, seen := ev.late, ev.stdout.String()
	ev.mu.Unlock()
	if late != 0 || strings.Contains(seen, "after") || !strings.HasPrefix("before\n", seen) {
		t.Fatalf("after promotion OnOutput was called %d times; it saw %q", late, seen)
	}
}
