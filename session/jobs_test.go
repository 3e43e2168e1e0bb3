//go:build linux

package session_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// jobSession is a session that promotes commands after a short soft
// timeout; commands wait for files the test creates, so no timing decides
// an outcome.
func jobSession(t *testing.T) *session.Session {
	t.Helper()
	return newSession(t, session.Options{SoftTimeout: 300 * time.Millisecond})
}

// until runs command until its text contains sub (a guard, not a
// threshold: a broken job never gets there and the test fails).
func until(t *testing.T, s *session.Session, command, sub string) *session.Result {
	t.Helper()
	end := time.Now().Add(time.Minute)
	for {
		res := run(t, s, command)
		if strings.Contains(res.Text(), sub) {
			return res
		}
		if time.Now().After(end) {
			t.Fatalf("Run(%q) never showed %q; last text:\n%s", command, sub, res.Text())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustContain(t *testing.T, res *session.Result, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(res.Text(), sub) {
			t.Fatalf("Run(%q) text lacks %q:\n%s", res.Command, sub, res.Text())
		}
	}
}

func TestJobPromotionAndControl(t *testing.T) {
	s := jobSession(t)
	run(t, s, "mkdir sub && cd sub && export JOBVAR=kept")
	ws := filepath.Dir(run(t, s, "true").Cwd)
	gate := filepath.Join(ws, "go1")

	res := run(t, s, "echo started; while [ ! -e "+gate+" ]; do sleep 0.02; done; echo finished; echo oops >&2; sh -c 'exit 3'")
	mustContain(t, res, "[Command still running after 0.3s: it is now background job 1; the session continues in a new shell with your directory and exported variables.", "Use `output 1`, `wait 1 [DURATION]`, `kill 1`, `jobs`.")
	if res.Restarted || res.TimedOut || res.Job != 1 {
		t.Fatalf("a promoted command is job 1, neither a restart nor a timeout (Job %d):\n%s", res.Job, res.Text())
	}
	if js, err := json.Marshal(res); err != nil || !strings.Contains(string(js), `"job":1}`) {
		t.Fatalf("JSON of a promoted command: %s, %v", js, err)
	}

	// The new shell has the directory and the exported variables.
	want(t, run(t, s, "basename \"$PWD\"; printenv JOBVAR"), "[stdout]\nsub\nkept\n")

	out := until(t, s, "output 1", "started")
	mustContain(t, out, "Job 1 running")
	// Nothing new since: --new shows no output.
	if nw := run(t, s, "output 1 --new"); nw.Stdout != "" || !strings.Contains(nw.Text(), "Job 1 running") {
		t.Fatalf("output 1 --new with nothing new:\n%s", nw.Text())
	}

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := run(t, s, "wait 1 60s")
	mustContain(t, done, "Job 1 finished (exit code 3)", "[exit code: 3]")
	if done.Stdout != "finished\n" || done.Stderr != "oops\n" {
		t.Fatalf("wait 1 shows what is new: stdout %q stderr %q", done.Stdout, done.Stderr)
	}
	if full := run(t, s, "output 1"); !strings.Contains(full.Stdout, "started\nfinished\n") {
		t.Fatalf("output 1 after the end:\n%s", full.Text())
	}

	// A second job gets number 2; wait on it returns while it runs.
	res = run(t, s, "while :; do sleep 0.02; done")
	mustContain(t, res, "background job 2")
	still := run(t, s, "wait 2 0.2")
	mustContain(t, still, "Job 2 is still running after waiting 0.2s.", "Job 2 running")

	list := run(t, s, "jobs")
	mustContain(t, list, "Job 1 finished (exit code 3)", "Job 2 running")

	killed := run(t, s, "kill 2")
	mustContain(t, killed, "Job 2 finished")
	if killed.ExitCode != 130 {
		t.Fatalf("kill 2 should stop the loop with SIGINT (exit code 130):\n%s", killed.Text())
	}
	mustContain(t, run(t, s, "jobs"), "Job 2 finished")

	// Job numbers are per session.
	s2 := jobSession(t)
	mustContain(t, run(t, s2, "while :; do sleep 0.02; done"), "background job 1")
}

func TestKillJobEscalates(t *testing.T) {
	s := newSession(t, session.Options{SoftTimeout: 300 * time.Millisecond, InterruptGrace: 200 * time.Millisecond})
	mustContain(t, run(t, s, "trap '' INT TERM; while :; do sleep 0.02; done"), "background job 1")
	killed := run(t, s, "kill 1")
	mustContain(t, killed, "Job 1 finished (exit code 137)")
	want(t, run(t, s, "echo alive"), "[stdout]\nalive\n")
}

func TestFinishedJobAnnouncedOnce(t *testing.T) {
	s := jobSession(t)
	gate := filepath.Join(run(t, s, "true").Cwd, "gate")
	mustContain(t, run(t, s, "while [ ! -e "+gate+" ]; do sleep 0.02; done; sh -c 'exit 4'"), "background job 1")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := until(t, s, "echo next", "Background job 1 finished (exit code 4)")
	mustContain(t, res, "Use `output 1` for its output.", "next")
	want(t, run(t, s, "echo again"), "[stdout]\nagain\n")
}

func TestJobStoppedAtItsTimeout(t *testing.T) {
	s := newSession(t, session.Options{SoftTimeout: 300 * time.Millisecond, InterruptGrace: 200 * time.Millisecond})
	res := runReq(t, s, session.Request{Command: "while :; do sleep 0.02; done", Timeout: time.Second})
	mustContain(t, res, "background job 1")
	done := run(t, s, "wait 1 60s")
	mustContain(t, done, "Job 1 finished (exit code 124, stopped at its timeout)", "[exit code: 124]")
}

func TestJobExitStateNotRestored(t *testing.T) {
	s := jobSession(t)
	ws := run(t, s, "mkdir here there; export KEPT=1").Cwd
	gate := filepath.Join(ws, "gate")
	mustContain(t, run(t, s, "cd here; while [ ! -e "+gate+" ]; do sleep 0.02; done; cd ../there; export LEAK=job; exit 5"), "background job 1")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	mustContain(t, run(t, s, "wait 1 60s"), "Job 1 finished (exit code 5)")
	// The session's shell dies without its EXIT trap: what the job's
	// shell left on its way out must not become the session's state.
	res := run(t, s, "kill -9 $$")
	if !res.Restarted {
		t.Fatalf("kill -9 $$ did not restart:\n%s", res.Text())
	}
	want(t, run(t, s, "echo \"$PWD|${KEPT-}|${LEAK-}\""), "[stdout]\n"+ws+"|1|\n")
}

func TestJobControlOnlyWhole(t *testing.T) {
	s := jobSession(t)
	run(t, s, "output() { echo \"bash output $*\"; }; jobs() { echo bash jobs; }")
	// No job yet: the words go to bash.
	want(t, run(t, s, "output 1"), "[stdout]\nbash output 1\n")
	want(t, run(t, s, "jobs"), "[stdout]\nbash jobs\n")

	mustContain(t, run(t, s, "while :; do sleep 0.02; done"), "background job 1")
	// The new shell lost the functions (unexported): define them again.
	run(t, s, "output() { echo \"bash output $*\"; }")
	want(t, run(t, s, "output 2"), "[stdout]\nbash output 2\n")
	want(t, run(t, s, "output 1 | cat"), "[stdout]\nbash output 1\n")
	want(t, run(t, s, "seq 1 2"), "[stdout]\n1\n2\n") // N names job 1, the verb is not one
	want(t, run(t, s, "output 1 --old"), "[stdout]\nbash output 1 --old\n")
	mustContain(t, run(t, s, "  output 1  "), "Job 1 running")

	// With SoftTimeout zero nothing is promoted nor intercepted.
	off := newSession(t, session.Options{})
	run(t, off, "output() { echo \"bash output $*\"; }")
	want(t, run(t, off, "output 1"), "[stdout]\nbash output 1\n")
}

func TestJobsDieWithClose(t *testing.T) {
	s := jobSession(t)
	ws := run(t, s, "true").Cwd
	pidFile := filepath.Join(ws, "pids")
	mustContain(t, run(t, s, "echo $$ > "+pidFile+"; sleep 1000 & echo $! >> "+pidFile+"; wait"), "background job 1")
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		end := time.Now().Add(10 * time.Second)
		for !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) && !zombie(pid) {
			if time.Now().After(end) {
				t.Fatalf("process %d of the job survived Close", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// zombie reports a process that has exited but is not reaped yet.
func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(data), ')')
	return i > 0 && i+2 < len(data) && data[i+2] == 'Z'
}

func TestSoftTimeoutOption(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	if _, err := session.New(t.Context(), sh, session.Options{SoftTimeout: -time.Second}); err == nil ||
		!strings.Contains(err.Error(), "SoftTimeout") {
		t.Fatalf("negative SoftTimeout: %v", err)
	}
	// A request whose timeout is not above SoftTimeout is not promoted.
	s := jobSession(t)
	res := runReq(t, s, session.Request{Command: "sleep 5", Timeout: 200 * time.Millisecond})
	if !res.TimedOut || strings.Contains(res.Text(), "background job") {
		t.Fatalf("short timeout promoted:\n%s", res.Text())
	}
}

func TestJobWaitBound(t *testing.T) {
	tests := []struct {
		name    string
		max     time.Duration
		wait    string
		refused bool
	}{
		{"above ten minutes when the maximum allows", 20 * time.Minute, "wait 1 15m", false},
		{"seconds above ten minutes", 20 * time.Minute, "wait 1 900", false},
		{"above the maximum", 10 * time.Minute, "wait 1 15m", true},
		{"not a duration", 20 * time.Minute, "wait 1 soon", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := newShell(t, shellcap.Options{MaxTimeout: tt.max})
			s, err := session.New(t.Context(), sh, session.Options{SoftTimeout: 300 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			gate := filepath.Join(run(t, s, "true").Cwd, "gate")
			mustContain(t, run(t, s, "while [ ! -e "+gate+" ]; do sleep 0.02; done; echo over"), "background job 1")
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			res := run(t, s, tt.wait)
			if tt.refused {
				if res.Err == nil || strings.Contains(res.Text(), "Job 1 finished") {
					t.Fatalf("%s not refused:\n%s", tt.wait, res.Text())
				}
				return
			}
			if res.Err != nil || res.Timeout <= 10*time.Minute {
				t.Fatalf("%s: timeout %v:\n%s", tt.wait, res.Timeout, res.Text())
			}
			mustContain(t, res, "over", "Job 1 finished (exit code 0)")
		})
	}
}

func TestJobOutputBounded(t *testing.T) {
	s := newSession(t, session.Options{SoftTimeout: 300 * time.Millisecond, MaxOutputChars: 1000})
	gate := filepath.Join(run(t, s, "true").Cwd, "gate")
	mustContain(t, run(t, s, "while [ ! -e "+gate+" ]; do sleep 0.02; done; seq 1 300000; printf '\\033[31mred\\033[0m\\n'"), "background job 1")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := run(t, s, "wait 1 60s")
	mustContain(t, res, "Job 1 finished (exit code 0)", "more bytes before this output; they are no longer kept.")
	if !strings.HasSuffix(res.Stdout, "299999\n300000\nred\n") || len(res.Stdout) > 64<<10 {
		t.Fatalf("stdout is not the bounded, ANSI-free end of the stream (%d bytes): ...%q", len(res.Stdout), res.Stdout[max(0, len(res.Stdout)-40):])
	}
	total := int64(len("\033[31mred\033[0m\n"))
	for i := 1; i <= 300000; i++ {
		total += int64(len(strconv.Itoa(i)) + 1)
	}
	if res.StdoutBytes != total {
		t.Fatalf("StdoutBytes %d does not count the whole stream", res.StdoutBytes)
	}
}
