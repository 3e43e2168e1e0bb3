//go:build linux

package jobs_test

import (
	"strings"
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
		c, err := m.Check(ctx, res.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		seen += c.Stdout
		return strings.Contains(seen, "late")
	})
	if seen != "early\nlate\n" {
		t.Fatalf("output so far plus new_only checks = %q", seen)
	}
	s, err := m.Stop(ctx, res.ID, false)
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
