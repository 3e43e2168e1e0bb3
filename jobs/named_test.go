//go:build linux

package jobs_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// runsCommand appends a line to runs.txt in the workspace each time it
// runs, then sleeps (or, with exit set, exits with it).
func runsCommand(tail string) string { return "echo run >> runs.txt; " + tail }

// runCount counts the runs runsCommand recorded in ws.
func runCount(t *testing.T, ws string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, "runs.txt"))
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "run\n")
}

// stopAndCountRuns waits until the commands in ws have run at least
// atLeast times, stops job id and returns how often they ran once it is
// stopped (every process it started gone).
func stopAndCountRuns(t *testing.T, m *jobs.Manager, ws, id string, atLeast int) int {
	t.Helper()
	waitFor(t, "the runs", func() bool { return runCount(t, ws) >= atLeast })
	s, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil || s.Err != nil {
		t.Fatalf("Stop: %v %v", err, s.Err)
	}
	return runCount(t, ws)
}

func TestStartWithIDTwiceRunsOnce(t *testing.T) {
	ws := t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	id := jobs.DeriveID("workflow-run", "activity-1")
	req := jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id}
	first, err := m.Start(ctxFor(t), req)
	if err != nil || first.Err != nil {
		t.Fatalf("Start: %v %v", err, first.Err)
	}
	if first.ID != id || first.Reattached {
		t.Fatalf("first Start = %+v, want ID %s, not re-attached", first, id)
	}
	second, err := m.Start(ctxFor(t), req)
	if err != nil || second.Err != nil {
		t.Fatalf("second Start: %v %v", err, second.Err)
	}
	if !second.Reattached || second.ID != id || second.PID != first.PID || second.PGID != first.PGID {
		t.Fatalf("second Start = %+v, want the first job (PID %d) re-attached", second, first.PID)
	}
	want := "Re-attached to background command: " + "'" + req.Command + "'" +
		" (already started with this ID; not started again)\nID: " + id + "\n[status: running]"
	if second.Text() != want {
		t.Fatalf("second Start text = %q, want %q", second.Text(), want)
	}
	data, err := json.Marshal(second)
	if err != nil || !strings.Contains(string(data), `"reattached":true`) {
		t.Fatalf("JSON %s (%v) does not say reattached", data, err)
	}
	if data, _ := json.Marshal(first); strings.Contains(string(data), "reattached") {
		t.Fatalf("a fresh start's JSON %s mentions reattached", data)
	}
	if n := stopAndCountRuns(t, m, ws, id, 1); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
}

// TestStartWithIDConcurrently starts one ID from 8 goroutines of one
// Manager and from 2 Managers on one workspace at once: one process.
func TestStartWithIDConcurrently(t *testing.T) {
	for _, managers := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d managers", managers), func(t *testing.T) {
			ws := t.TempDir()
			var ms []*jobs.Manager
			for range managers {
				ms = append(ms, managerOn(t, newShell(t, ws), jobs.Options{}))
			}
			id := jobs.DeriveID(t.Name())
			req := jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id}
			const n = 8
			results := make([]*jobs.StartResult, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					res, err := ms[i%managers].Start(ctxFor(t), req)
					if err != nil {
						t.Errorf("Start %d: %v", i, err)
						return
					}
					results[i] = res
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			fresh := 0
			for i, res := range results {
				if res.Err != nil || res.ID != id || res.PID != results[0].PID {
					t.Fatalf("Start %d = %+v (%v), want job %s with PID %d", i, res, res.Err, id, results[0].PID)
				}
				if !res.Reattached {
					fresh++
				}
			}
			if fresh != 1 {
				t.Fatalf("%d Starts launched the job, want 1", fresh)
			}
			if runs := stopAndCountRuns(t, ms[0], ws, id, 1); runs != 1 {
				t.Fatalf("the command ran %d times, want 1", runs)
			}
		})
	}
}

// TestStartWithIDAfterHostDied starts a job with an ID from a host process
// killed afterwards (a worker killed with SIGKILL); a new Manager, as the
// restarted worker, starts the same ID and re-attaches to it.
func TestStartWithIDAfterHostDied(t *testing.T) {
	ws := t.TempDir()
	id := jobs.DeriveID("run", t.Name())
	command := runsCommand("echo host-started; sleep 300")
	if got := startCommandInHost(t, ws, "", command, "SCTEST_JOBS_ID="+id); got != id {
		t.Fatalf("the host started job %s, want %s", got, id)
	}
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: command, ID: id})
	if err != nil || res.Err != nil {
		t.Fatalf("Start: %v %v", err, res.Err)
	}
	l, err := m.List(ctxFor(t))
	if err != nil || len(l.Jobs) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
	if !res.Reattached || res.ID != id || res.PID != l.Jobs[0].PID || res.Status != jobs.StatusRunning {
		t.Fatalf("Start = %+v, want the host's job (PID %d) running, re-attached", res, l.Jobs[0].PID)
	}
	if n := stopAndCountRuns(t, m, ws, id, 1); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
}

// TestStartWithIDFinished re-attaches to a job that finished (its exit
// code) and to one a Stop ended and removed (the recorded result): it
// does not run again.
func TestStartWithIDFinished(t *testing.T) {
	ws := t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	id := jobs.DeriveID(t.Name(), "exits")
	req := jobs.StartRequest{Command: runsCommand("exit 7"), ID: id}
	start(t, m, req)
	w, err := m.Wait(ctxFor(t), id, time.Minute)
	if err != nil || w.ExitCode == nil || *w.ExitCode != 7 {
		t.Fatalf("Wait = %v, %v", w, err)
	}
	again, err := m.Start(ctxFor(t), req)
	if err != nil || again.Err != nil {
		t.Fatalf("Start: %v %v", err, again.Err)
	}
	if !again.Reattached || again.Status != jobs.StatusFinished || again.ExitCode == nil || *again.ExitCode != 7 {
		t.Fatalf("Start of the finished job = %+v", again)
	}
	if !strings.HasSuffix(again.Text(), "\n[status: finished]\n[exit code: 7]") {
		t.Fatalf("Start text = %q", again.Text())
	}
	if n := runCount(t, ws); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}

	// Stopped and removed: the final result is all that is left.
	id2 := jobs.DeriveID(t.Name(), "stopped")
	req2 := jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id2}
	start(t, m, req2)
	if n := stopAndCountRuns(t, m, ws, id2, 2); n != 2 {
		t.Fatalf("the commands ran %d times, want 2", n)
	}
	// A new Manager, which did not see the Stop.
	m2 := managerOn(t, newShell(t, ws), jobs.Options{})
	for _, mm := range []*jobs.Manager{m, m2} {
		res, err := mm.Start(ctxFor(t), req2)
		if err != nil || res.Err != nil {
			t.Fatalf("Start: %v %v", err, res.Err)
		}
		if !res.Reattached || !res.Stopped || res.ExitCode == nil || *res.ExitCode != 143 || res.PID != 0 {
			t.Fatalf("Start of the stopped job = %+v", res)
		}
		if want := "\nID: " + id2 + "\n[stopped]\n[exit code: 143]"; !strings.HasSuffix(res.Text(), want) {
			t.Fatalf("Start text = %q, want it to end %q", res.Text(), want)
		}
	}
	time.Sleep(200 * time.Millisecond) // a second run would have appended by now
	if n := runCount(t, ws); n != 2 {
		t.Fatalf("the commands ran %d times, want 2", n)
	}

	// Stopped with its files kept: the job itself is still there.
	id3 := jobs.DeriveID(t.Name(), "kept")
	req3 := jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id3}
	first := start(t, m, req3)
	waitFor(t, "the third run", func() bool { return runCount(t, ws) >= 3 })
	if s, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: first, Keep: true}); err != nil || !s.Kept {
		t.Fatalf("Stop with Keep: %+v %v", s, err)
	}
	res, err := m2.Start(ctxFor(t), req3)
	if err != nil || res.Err != nil || !res.Reattached || !res.Stopped || res.PID == 0 || res.Dir == "" ||
		res.ExitCode == nil || *res.ExitCode != 143 || !strings.HasSuffix(res.Text(), "\n[stopped]\n[exit code: 143]") {
		t.Fatalf("Start of the stopped, kept job = %+v %v (%q)", res, err, res.Text())
	}
	time.Sleep(200 * time.Millisecond)
	if n := runCount(t, ws); n != 3 {
		t.Fatalf("the commands ran %d times, want 3", n)
	}
}

func TestStartWithInvalidOrTakenID(t *testing.T) {
	ws := t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	for _, id := range []string{"abc", strings.Repeat("A", 32), strings.Repeat("a", 31), strings.Repeat("a", 33),
		"../../../../../../../../../tmp/xx", strings.Repeat("g", 32), strings.Repeat("a", 31) + "\x00"} {
		res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: runsCommand("true"), ID: id})
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(res.Err, jobs.ErrInvalidID) || res.ID != "" {
			t.Fatalf("Start with ID %q = %+v (%v), want ErrInvalidID", id, res, res.Err)
		}
		if !strings.Contains(res.Text(), "is not 32 lower-case hexadecimal digits; nothing was started") {
			t.Fatalf("Start with ID %q: text %q", id, res.Text())
		}
	}
	time.Sleep(100 * time.Millisecond)
	if n := runCount(t, ws); n != 0 {
		t.Fatalf("a refused start ran %d times", n)
	}
	id := jobs.DeriveID(t.Name())
	start(t, m, jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id})
	for _, req := range []jobs.StartRequest{
		{Command: "echo other", ID: id},
		{Command: runsCommand("sleep 300"), ID: id, Stdin: true},
	} {
		res, err := m.Start(ctxFor(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(res.Err, jobs.ErrIDConflict) || res.ID != "" {
			t.Fatalf("Start %+v over another command's ID = %+v (%v), want ErrIDConflict", req, res, res.Err)
		}
	}
	if n := stopAndCountRuns(t, m, ws, id, 1); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
}

func TestDeriveID(t *testing.T) {
	ids := map[string][]string{}
	for _, parts := range [][]string{{}, {""}, {"", ""}, {"a"}, {"a", ""}, {"ab", "c"}, {"a", "bc"}, {"abc"}, {"run-1", "activity-7"}} {
		id := jobs.DeriveID(parts...)
		if again := jobs.DeriveID(parts...); again != id {
			t.Fatalf("DeriveID(%q) = %s then %s", parts, id, again)
		}
		if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
			t.Fatalf("DeriveID(%q) = %q, not 32 lower-case hex digits", parts, id)
		}
		if other, ok := ids[id]; ok {
			t.Fatalf("DeriveID(%q) = DeriveID(%q) = %s", parts, other, id)
		}
		ids[id] = parts
	}
}

// TestStartWithIDAfterFailedLaunch starts an ID whose job directory a
// launch left without a status (its host was killed mid-launch): an old
// one is removed and the job started afresh; a recent one is waited for,
// and when its status comes the start re-attaches instead of starting a
// second process.
func TestStartWithIDAfterFailedLaunch(t *testing.T) {
	ws := t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	start(t, m, jobs.StartRequest{Command: "true"}) // makes the jobs directory
	root := filepath.Join(ws, ".shellcap", "jobs")
	leftover := func(id string, age time.Duration) string {
		dir := filepath.Join(root, id)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stdout.log"), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
		return dir
	}

	// Long dead: started afresh at once.
	id := jobs.DeriveID(t.Name(), "old")
	leftover(id, time.Hour)
	req := jobs.StartRequest{Command: runsCommand("sleep 300"), ID: id}
	res, err := m.Start(ctxFor(t), req)
	if err != nil || res.Err != nil || res.Reattached || res.ID != id {
		t.Fatalf("Start over an old failed launch = %+v, %v", res, err)
	}
	if n := stopAndCountRuns(t, m, ws, id, 1); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}

	// Recent: waited for. Its status arrives (a job whose processes are
	// gone, as if its supervisor died after reporting).
	id2 := jobs.DeriveID(t.Name(), "recent")
	dir := leftover(id2, 35*time.Second-1500*time.Millisecond)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	command := runsCommand("sleep 300")
	go func() {
		time.Sleep(300 * time.Millisecond)
		st := fmt.Sprintf(`{"version":1,"id":%q,"command":%q,"state":"running","supervisor_pid":%d,"supervisor_start_ticks":1,"pid":%d,"pgid":%d,"start_ticks":1,"started_at":%q,"exit_code":null,"stdout_bytes":0}`,
			id2, command, dead.Process.Pid, dead.Process.Pid, dead.Process.Pid, time.Now().UTC().Format(time.RFC3339Nano))
		if err := jobs.WriteSignedStatus(m, dir, []byte(st)); err != nil {
			t.Error(err)
		}
	}()
	res, err = m.Start(ctxFor(t), jobs.StartRequest{Command: command, ID: id2})
	if err != nil || res.Err != nil {
		t.Fatalf("Start: %v %v", err, res.Err)
	}
	if !res.Reattached || res.Status != jobs.StatusFinished || res.PID != dead.Process.Pid {
		t.Fatalf("Start over a launch in progress = %+v, want the launch's job re-attached", res)
	}

	// Recent, and it never reports: removed after the launch timeout, then
	// started afresh.
	id3 := jobs.DeriveID(t.Name(), "never")
	leftover(id3, 35*time.Second-1500*time.Millisecond)
	begin := time.Now()
	res, err = m.Start(ctxFor(t), jobs.StartRequest{Command: command, ID: id3})
	if err != nil || res.Err != nil || res.Reattached {
		t.Fatalf("Start after a launch that never reported = %+v, %v", res, err)
	}
	if waited := time.Since(begin); waited < time.Second {
		t.Fatalf("Start replaced a launch that might still report after %v", waited)
	}
	if n := stopAndCountRuns(t, m, ws, id3, 2); n != 2 {
		t.Fatalf("the commands ran %d times, want 2", n)
	}
}

// TestStaleStartLockRemoved: a start lock left in the key directory by a
// process that died holding it goes with Retention; a start's own lock
// never outlives the start.
func TestStaleStartLockRemoved(t *testing.T) {
	keyDir := t.TempDir()
	ws := t.TempDir()
	stale := filepath.Join(keyDir, "job-"+jobs.DeriveID("stale")+".start")
	fresh := filepath.Join(keyDir, "job-"+jobs.DeriveID("fresh")+".start")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-jobs.DefaultRetention - time.Hour)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	m := managerOn(t, newShell(t, ws), jobs.Options{KeyDir: keyDir})
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale start lock still there: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("a recent start lock went: %v", err)
	}
	id := jobs.DeriveID(t.Name())
	start(t, m, jobs.StartRequest{Command: "sleep 300", ID: id})
	if _, err := os.Stat(filepath.Join(keyDir, "job-"+id+".start")); !os.IsNotExist(err) {
		t.Fatalf("the start left its lock behind: %v", err)
	}
}

// TestStartWithIDAcrossProcesses starts one ID from three host processes
// and this one at once: one job, one run.
func TestStartWithIDAcrossProcesses(t *testing.T) {
	ws := t.TempDir()
	id := jobs.DeriveID(t.Name())
	command := runsCommand("sleep 300")
	_, markValue, _ := strings.Cut(testMark, "=")
	said := make(chan string, 3)
	var hosts []*exec.Cmd
	t.Cleanup(func() {
		for _, h := range hosts {
			_ = h.Process.Kill()
			_ = h.Wait()
		}
	})
	for range 3 {
		host := exec.Command(os.Args[0], "-test.run=^$")
		host.Env = append(os.Environ(), helperEnv+"=host", "SCTEST_JOBS_WS="+ws, "SCTEST_JOBS_MARKV="+markValue,
			"SCTEST_JOBS_CMD="+command, "SCTEST_JOBS_ID="+id)
		out, err := host.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := host.Start(); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, host)
		go func() {
			sc := bufio.NewScanner(out)
			line := ""
			if sc.Scan() {
				line = sc.Text()
			}
			said <- line
			_, _ = io.Copy(io.Discard, out)
		}()
	}
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: command, ID: id})
	if err != nil || res.Err != nil || res.ID != id {
		t.Fatalf("Start: %+v %v", res, err)
	}
	for range hosts {
		select {
		case line := <-said:
			if line != "ID "+id {
				t.Fatalf("a host said %q, want ID %s", line, id)
			}
		case <-time.After(testTimeout):
			t.Fatal("a host reported no job")
		}
	}
	l, err := m.List(ctxFor(t))
	if err != nil || len(l.Jobs) != 1 || l.Jobs[0].ID != id || l.Jobs[0].PID != res.PID {
		t.Fatalf("List = %q, %v; want the one job %s (PID %d)", l.Text(), err, id, res.PID)
	}
	if n := stopAndCountRuns(t, m, ws, id, 1); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}
}

// TestShellToolWithID: a foreground shell call repeated with its ID
// reports the job the first call ran (its output, its exit code) without
// running it again; once a Stop removed a job, only its end is left; a
// Start job's ID is not the shell tool's.
func TestShellToolWithID(t *testing.T) {
	ws := t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	id := jobs.DeriveID(t.Name(), "fg")
	req := jobs.ShellRequest{Command: runsCommand("echo hello; exit 3"), ID: id, Timeout: time.Minute}
	first, err := m.ShellTool(ctxFor(t), req)
	if err != nil || first.Err != nil || !first.Finished || first.Reattached {
		t.Fatalf("first call: %+v %v", first, err)
	}
	again, err := m.ShellTool(ctxFor(t), req)
	if err != nil || again.Err != nil {
		t.Fatalf("second call: %v %v", err, again.Err)
	}
	if !again.Reattached || again.ID != id || again.PID != first.PID || !again.Finished ||
		again.ExitCode == nil || *again.ExitCode != 3 || again.Output != first.Output {
		t.Fatalf("second call = %+v, want the first one's job re-attached", again)
	}
	if !strings.HasPrefix(again.Text(), "[re-attached to the command already started with this ID (ID: "+id+")") ||
		!strings.Contains(again.Text(), "hello\n") {
		t.Fatalf("second call text = %q", again.Text())
	}
	if n := runCount(t, ws); n != 1 {
		t.Fatalf("the command ran %d times, want 1", n)
	}

	id2 := jobs.DeriveID(t.Name(), "bg")
	bg := jobs.ShellRequest{Command: runsCommand("sleep 300"), ID: id2, Mode: jobs.Background}
	if res, err := m.ShellTool(ctxFor(t), bg); err != nil || res.Err != nil {
		t.Fatalf("background call: %+v %v", res, err)
	}
	if n := stopAndCountRuns(t, m, ws, id2, 2); n != 2 {
		t.Fatalf("the commands ran %d times, want 2", n)
	}
	res, err := m.ShellTool(ctxFor(t), bg)
	if err != nil || res.Err != nil || !res.Reattached || !res.Finished || res.ExitCode == nil || *res.ExitCode != 143 || res.PID != 0 {
		t.Fatalf("call after the Stop = %+v %v", res, err)
	}
	if want := "[re-attached to the command already started with this ID (ID: " + id2 + "); it was not started again]\n[stopped]\n[exit code: 143]"; res.Text() != want {
		t.Fatalf("text = %q, want %q", res.Text(), want)
	}

	id3 := jobs.DeriveID(t.Name(), "start")
	start(t, m, jobs.StartRequest{Command: "sleep 300", ID: id3})
	res, err = m.ShellTool(ctxFor(t), jobs.ShellRequest{Command: "sleep 300", ID: id3, Mode: jobs.Background})
	if err != nil || !errors.Is(res.Err, jobs.ErrIDConflict) {
		t.Fatalf("shell call over a Start job's ID = %+v %v, want ErrIDConflict", res, err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := runCount(t, ws); n != 2 {
		t.Fatalf("the commands ran %d times, want 2", n)
	}
}

// TestRunOnStart: Manager.Run calls Request.OnStart once with the PID of
// the job's shell ($$ in the command).
func TestRunOnStart(t *testing.T) {
	m := newManager(t, jobs.Options{})
	var pids []int
	res, err := m.Run(ctxFor(t), shellcap.Request{Command: "echo $$", OnStart: func(pid int) { pids = append(pids, pid) }}, time.Minute)
	if err != nil || res.Result == nil || res.Result.Err != nil {
		t.Fatalf("Run: %+v %v", res, err)
	}
	if len(pids) != 1 || strings.TrimSpace(res.Result.Stdout) != strconv.Itoa(pids[0]) {
		t.Fatalf("OnStart got %v; the shell said it is %q", pids, res.Result.Stdout)
	}
	denied, err := m.Run(ctxFor(t), shellcap.Request{Command: "rm -rf /", OnStart: func(pid int) { pids = append(pids, pid) }}, time.Minute)
	if err != nil || denied.Result == nil || !errors.Is(denied.Result.Err, shellcap.ErrDenied) || len(pids) != 1 {
		t.Fatalf("denied Run: %+v %v; OnStart calls %v", denied, err, pids)
	}
}
