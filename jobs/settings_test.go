//go:build linux

package jobs_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// shellWith returns a Shell with opts (and the leak mark), on a fresh
// workspace unless opts names one.
func shellWith(t *testing.T, opts shellcap.Options) *shellcap.Shell {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	_, value, _ := strings.Cut(testMark, "=")
	opts.Env = markEnv(value)
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// TestKillGraceFromShell: a zero Options.KillGrace is the Shell's: the
// supervisor of a job, of a shell tool call and of a promoted command
// gets it (its status file records it), and Options.KillGrace overrides
// it.
func TestKillGraceFromShell(t *testing.T) {
	for _, c := range []struct {
		name  string
		shell time.Duration
		own   time.Duration
		want  float64 // ms
	}{
		{"shell's", 200 * time.Millisecond, 0, 200},
		{"default", 0, 0, float64(shellcap.DefaultKillGrace.Milliseconds())},
		{"own", 200 * time.Millisecond, 300 * time.Millisecond, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := managerOn(t, shellWith(t, shellcap.Options{KillGrace: c.shell}), jobs.Options{KillGrace: c.own})
			ctx := ctxFor(t)
			res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 300"})
			if err != nil || res.Err != nil {
				t.Fatalf("Start: %v %v", err, res.Err)
			}
			sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "sleep 300", Mode: jobs.Background})
			if err != nil || sr.Err != nil {
				t.Fatalf("Shell: %v %v", err, sr.Err)
			}
			rr, err := m.Run(ctx, shellcap.Request{Command: "echo promoted; sleep 300"}, time.Millisecond)
			if err != nil || !rr.Promoted {
				t.Fatalf("Run: %v %+v", err, rr)
			}
			for _, dir := range []string{res.Dir, filepath.Dir(sr.StatusPath), filepath.Join(filepath.Dir(res.Dir), rr.ID)} {
				st := readStatusMap(t, filepath.Join(dir, "status.json"))
				if st["kill_grace_ms"] != c.want {
					t.Errorf("%s: kill_grace_ms = %v, want %v", dir, st["kill_grace_ms"], c.want)
				}
			}
		})
	}
}

// TestOutputSettingsFromShell: the Shell's MaxOutputChars, KeepANSI and
// HeadAndTail reach what the model reads of a job (Check), of the shell
// tool and of a command that finished within Run's foreground timeout.
func TestOutputSettingsFromShell(t *testing.T) {
	const cmd = `printf '\033[31mred\033[0m\n'; seq 1 2000`
	t.Run("MaxOutputChars", func(t *testing.T) {
		m := managerOn(t, shellWith(t, shellcap.Options{MaxOutputChars: 100}), jobs.Options{})
		for via, text := range outputsOf(t, m, cmd) {
			// Run's text ends with its notes (where the full log is), the
			// shell tool's with its handles.
			end := "2000"
			switch via {
			case "Run":
				end = ""
			case "Shell":
				end = "/status.json"
			}
			if n := utf8.RuneCountInString(text); n > 100 || !strings.Contains(text, end) {
				t.Errorf("%s: %d characters (want at most 100, with the end):\n%s", via, n, text)
			}
		}
		m = managerOn(t, shellWith(t, shellcap.Options{MaxOutputChars: 100}), jobs.Options{MaxOutputChars: 200})
		for via, text := range outputsOf(t, m, cmd) {
			if n := utf8.RuneCountInString(text); n <= 100 || n > 200 {
				t.Errorf("own MaxOutputChars: %s: %d characters (want 101 to 200)", via, n)
			}
		}
	})
	t.Run("KeepANSI", func(t *testing.T) {
		for _, keep := range []bool{false, true} {
			m := managerOn(t, shellWith(t, shellcap.Options{KeepANSI: keep}), jobs.Options{})
			for via, text := range outputsOf(t, m, `printf '\033[31mred\033[0m\n'`) {
				if got := strings.Contains(text, "\x1b[31m"); got != keep || !strings.Contains(text, "red") {
					t.Errorf("KeepANSI %v: %s keeps the escape: %v:\n%q", keep, via, got, text)
				}
			}
		}
	})
	t.Run("HeadAndTail", func(t *testing.T) {
		for _, both := range []bool{false, true} {
			m := managerOn(t, shellWith(t, shellcap.Options{MaxOutputChars: 200, HeadAndTail: both}), jobs.Options{})
			rr, err := m.Run(ctxFor(t), shellcap.Request{Command: "seq 1 2000"}, 0)
			if err != nil || rr.Result == nil {
				t.Fatalf("Run: %v %+v", err, rr)
			}
			text := rr.Text()
			if n := utf8.RuneCountInString(text); n > 200 || !strings.HasSuffix(text, "(grep it or read parts with sed -n 'A,Bp')]") {
				t.Fatalf("HeadAndTail %v: %d characters, or the end is missing:\n%s", both, n, text)
			}
			if got := strings.HasPrefix(text, "[stdout]\n1\n2\n3\n"); got != both {
				t.Errorf("HeadAndTail %v: the text keeps the head: %v:\n%s", both, got, text)
			}
		}
	})
}

// outputsOf runs command as a job (read with Check once it finished),
// through the shell tool and through Run, and returns what the model reads
// of each.
func outputsOf(t *testing.T, m *jobs.Manager, command string) map[string]string {
	t.Helper()
	ctx := ctxFor(t)
	out := map[string]string{}
	id := start(t, m, jobs.StartRequest{Command: command})
	if w, err := m.Wait(ctx, id, jobs.MaxWait); err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %q", err, w.Text())
	}
	c, err := m.Check(ctx, jobs.CheckRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	out["Check"] = c.Text()
	sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: command, Timeout: time.Minute})
	if err != nil || sr.Err != nil || !sr.Finished {
		t.Fatalf("Shell: %v %+v", err, sr)
	}
	// The shell tool's text ends with the handles; its output is the log.
	out["Shell"] = sr.Text()
	if !strings.Contains(command, "seq") {
		out["Shell"] = sr.Output
	}
	rr, err := m.Run(ctx, shellcap.Request{Command: command}, 0)
	if err != nil || rr.Result == nil {
		t.Fatalf("Run: %v %+v", err, rr)
	}
	out["Run"] = rr.Text()
	return out
}

// TestTimeoutsFromShell: the shell tool waits the Shell's DefaultTimeout
// when asked for none, and refuses more than the Shell's MaxTimeout; Run
// refuses a job time limit above it; Wait refuses more than MaxWait. Each
// refusal is the Shell's one timeout message, matchable with
// shellcap.ErrTimeoutRange.
func TestTimeoutsFromShell(t *testing.T) {
	m := managerOn(t, shellWith(t, shellcap.Options{DefaultTimeout: time.Second, MaxTimeout: 5 * time.Second}), jobs.Options{})
	// The test's deadline is far beyond the Shell's default: a call that
	// waited the package's own 30 s default would end with the context.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sr, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "sleep 600"})
	if err != nil || sr.Err != nil || sr.Finished {
		t.Fatalf("Shell with the default timeout: %v %+v", err, sr)
	}
	if _, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: sr.ID}); err != nil {
		t.Fatal(err)
	}
	const msg = "The timeout must be at least 0.001s and at most 5s (got 6s)."
	sr, err = m.ShellTool(ctxFor(t), jobs.ShellRequest{Command: "true", Timeout: 6 * time.Second})
	if err != nil || !errors.Is(sr.Err, shellcap.ErrTimeoutRange) || sr.ID != "" || sr.Text() != msg {
		t.Fatalf("Shell over MaxTimeout: %v %+v %q", err, sr, sr.Text())
	}
	rr, err := m.Run(ctxFor(t), shellcap.Request{Command: "true", Timeout: 6 * time.Second}, time.Second)
	if err != nil || rr.Result == nil || !errors.Is(rr.Result.Err, shellcap.ErrTimeoutRange) || !strings.Contains(rr.Text(), msg) {
		t.Fatalf("Run over MaxTimeout: %v %+v", err, rr)
	}
	w, err := m.Wait(ctxFor(t), "x", jobs.MaxWait+time.Second)
	if err != nil || !errors.Is(w.Err, shellcap.ErrTimeoutRange) || w.ExitCode != nil || w.Text() != "The timeout must be at least 0.001s and at most 600s (got 601s)." {
		t.Fatalf("Wait over MaxWait: %v %+v %q", err, w, w.Text())
	}
}

// TestStopUsesTheStoppingManagersKillGrace: a job started by a Manager
// with a long grace and stopped by another Manager of the workspace (as
// `shellcap start` then `shellcap stop --kill-grace 200ms` do) is stopped
// with the stopping Manager's grace: it needs SIGKILL (137), and the
// status records the grace given.
func TestStopUsesTheStoppingManagersKillGrace(t *testing.T) {
	ws := t.TempDir()
	starter := managerOn(t, newShell(t, ws), jobs.Options{KillGrace: 10 * time.Minute})
	id := start(t, starter, jobs.StartRequest{Command: "trap '' TERM; echo up; while :; do sleep 0.1; done"})
	waitOutput(t, starter, id, "up")
	stopper := managerOn(t, newShell(t, ws), jobs.Options{KillGrace: 200 * time.Millisecond})
	s, err := stopper.Stop(ctxFor(t), jobs.StopRequest{ID: id, Keep: true})
	if err != nil || s.ExitCode == nil || *s.ExitCode != 137 {
		t.Fatalf("Stop: %v %q", err, s.Text())
	}
	if st := readStatusMap(t, filepath.Join(s.Dir, "status.json")); st["kill_grace_ms"] != float64(200) {
		t.Fatalf("kill_grace_ms = %v, want 200", st["kill_grace_ms"])
	}
}
