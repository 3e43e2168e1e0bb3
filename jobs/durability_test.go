//go:build linux

package jobs_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap/jobs"
)

// TestJobSurvivesHostRestart starts a job from a separate host process,
// kills that host with SIGKILL, then checks and stops the job from a new
// Manager in this process.
func TestJobSurvivesHostRestart(t *testing.T) {
	ws := t.TempDir()
	id := startInHost(t, ws, false)
	m := managerOn(t, newShell(t, ws), jobs.Options{})
	c := waitOutput(t, m, id, "host-started")
	if c.Status != jobs.StatusRunning {
		t.Fatalf("after the host died, Check = %q", c.Text())
	}
	l, err := m.List(ctxFor(t))
	if err != nil || len(l.Jobs) != 1 || l.Jobs[0].ID != id {
		t.Fatalf("List after restart = %q, %v", l.Text(), err)
	}
	s, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if want := "[stdout]\nhost-started\n\n[stopped]\n[exit code: 143]"; s.Text() != want {
		t.Fatalf("Stop after restart = %q, want %q", s.Text(), want)
	}
}

// startInHost starts "echo host-started; sleep 300" as a job from a
// separate host process (with the default sandbox when sandboxed), kills
// that host with SIGKILL and returns the job's ID.
func startInHost(t *testing.T, ws string, sandboxed bool) string {
	t.Helper()
	box := ""
	if sandboxed {
		box = "default"
	}
	return startCommandInHost(t, ws, box, "")
}

// startCommandInHost is startInHost for command (empty: the host helper's
// own), in the sandbox box names: "" none, "default", "allowlist" (the
// default with a network allowlist of example.com:443), with env added to
// the host's environment.
func startCommandInHost(t *testing.T, ws, box, command string, env ...string) string {
	t.Helper()
	_, markValue, _ := strings.Cut(testMark, "=")
	host := exec.Command(os.Args[0], "-test.run=^$")
	host.Env = append(os.Environ(), helperEnv+"=host", "SCTEST_JOBS_WS="+ws, "SCTEST_JOBS_MARKV="+markValue, "SCTEST_JOBS_CMD="+command)
	if box != "" {
		host.Env = append(host.Env, "SCTEST_JOBS_SANDBOX="+box)
	}
	host.Env = append(host.Env, env...)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	var reader sync.WaitGroup
	reader.Go(func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	})
	var id string
	select {
	case line := <-lines:
		var ok bool
		if id, ok = strings.CutPrefix(line, "ID "); !ok {
			t.Fatalf("host helper said %q", line)
		}
	case <-time.After(testTimeout):
		t.Fatal("host helper reported no job")
	}
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = host.Wait()
	reader.Wait()
	return id
}

// TestStaleIDAfterPIDReuse makes a job's recorded processes belong to a
// bystander (as if the job had died long ago and its PIDs been reused) and
// checks that neither Check nor Stop signals the bystander.
func TestStaleIDAfterPIDReuse(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{KillGrace: 200 * time.Millisecond})
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 300"})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %v", err, res)
	}
	statusPath := filepath.Join(res.Dir, "status.json")
	st := readStatusMap(t, statusPath)
	supPID := int(st["supervisor_pid"].(float64))
	// The job dies behind the Manager's back.
	_ = syscall.Kill(supPID, syscall.SIGKILL)
	_ = syscall.Kill(-res.PGID, syscall.SIGKILL)
	waitFor(t, "the job to be seen gone", func() bool {
		c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID})
		return err == nil && c.Status == jobs.StatusFinished
	})

	// A bystander that we own, leading its own group.
	bystander := exec.Command("sleep", "300")
	bystander.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := bystander.Start(); err != nil {
		t.Fatal(err)
	}
	bpid := bystander.Process.Pid
	defer func() {
		_ = bystander.Process.Kill()
		_ = bystander.Wait()
	}()
	// Rewrite the status as if the job were running with the bystander's
	// PIDs, keeping the job's own (now stale) start times.
	st["state"] = "running"
	st["exit_code"] = nil
	delete(st, "finished_at")
	delete(st, "supervisor_lost")
	st["supervisor_pid"], st["pid"], st["pgid"] = bpid, bpid, bpid
	// The recorded start time is an earlier one than the bystander's (the
	// job and the bystander may have started in the same clock tick).
	stale := startTicks(t, bpid) - 1
	st["start_ticks"], st["supervisor_start_ticks"] = stale, stale
	data, _ := json.Marshal(st)
	if err := jobs.WriteSignedStatus(m, res.Dir, data); err != nil {
		t.Fatal(err)
	}

	// A new Manager (the old one remembers the job finished).
	m2 := managerOn(t, sh, jobs.Options{KillGrace: 200 * time.Millisecond})
	c, err := m2.Check(ctx, jobs.CheckRequest{ID: res.ID})
	if err != nil || c.Status != jobs.StatusFinished || c.ExitCode != nil || !c.SupervisorLost {
		t.Fatalf("Check of a stale job = %q (%+v), %v", c.Text(), c, err)
	}
	s, err := m2.Stop(ctx, jobs.StopRequest{ID: res.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(no output)\n[the job's supervisor was lost; its exit code is unknown]\n[stopped]"; s.Text() != want {
		t.Fatalf("Stop of a stale job = %q, want %q", s.Text(), want)
	}
	// The bystander was not signalled: it is still running, and it dies
	// of our SIGKILL, not of a SIGTERM.
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", bpid)); err != nil || strings.Contains(string(stat), ") Z ") {
		t.Fatalf("bystander %d is gone: %v %s", bpid, err, stat)
	}
	_ = bystander.Process.Kill()
	err = bystander.Wait()
	ws, _ := bystander.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("bystander ended with %v (%v), want our SIGKILL", ws, err)
	}
}

func readStatusMap(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestThousandJobs starts, checks and stops 1,000 jobs with bounded
// concurrency; TestMain then checks that no process, goroutine or file
// descriptor leaked.
func TestThousandJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const total, workers = 1000, 8
	m := newManager(t, jobs.Options{MaxJobs: 2 * workers})
	ctx := ctxFor(t)
	ids := make(chan int)
	errs := make(chan error, total)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range ids {
				res, err := m.Start(ctx, jobs.StartRequest{Command: "echo job-" + strconv.Itoa(i) + "; exec sleep 300"})
				if err != nil || res.ID == "" {
					errs <- fmt.Errorf("Start %d: %v %v", i, err, res)
					continue
				}
				if c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID}); err != nil || c.Status != jobs.StatusRunning {
					errs <- fmt.Errorf("Check %d: %v %+v", i, err, c)
				}
				s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
				if err != nil || s.ExitCode == nil || *s.ExitCode != 143 {
					errs <- fmt.Errorf("Stop %d: %v %+v", i, err, s)
				}
			}
		})
	}
	for i := range total {
		ids <- i
	}
	close(ids)
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 10 {
			t.Error(err)
		}
	}
	l, err := m.List(ctx)
	if err != nil || len(l.Jobs) != 0 {
		t.Fatalf("List after stopping everything = %d jobs, %v", len(l.Jobs), err)
	}
	if leaked := markedProcesses(testMark, 10*time.Second); len(leaked) > 0 {
		t.Fatalf("processes left: %v", leaked)
	}
}

// TestStopWithoutSupervisor stops a job whose supervisor died while the
// command kept running: Stop signals the command's group directly, after
// checking that its leader is the recorded process.
func TestStopWithoutSupervisor(t *testing.T) {
	m := newManager(t, jobs.Options{KillGrace: 200 * time.Millisecond})
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "exec sleep 300"})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %v", err, res)
	}
	st := readStatusMap(t, filepath.Join(res.Dir, "status.json"))
	_ = syscall.Kill(int(st["supervisor_pid"].(float64)), syscall.SIGKILL)
	c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID})
	if err != nil || c.Status != jobs.StatusRunning {
		t.Fatalf("Check of an unsupervised job = %q, %v", c.Text(), err)
	}
	s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(no output)\n[the job's supervisor was lost; its exit code is unknown]\n[stopped]"; s.Text() != want {
		t.Fatalf("Stop = %q, want %q", s.Text(), want)
	}
	waitFor(t, "the command to die", func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", res.PID))
		return err != nil || strings.Contains(string(stat), ") Z ")
	})
}

// TestNewOnlySurvivesRestart checks that new_only continues where the
// previous Manager left off.
func TestNewOnlySurvivesRestart(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "cat", Stdin: true})
	if in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "before\n"}); err != nil || in.Err != nil {
		t.Fatalf("Input: %v %+v", err, in)
	}
	waitOutput(t, m, id, "before")
	if _, err := m.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: true}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	m2 := managerOn(t, sh, jobs.Options{})
	if in, err := m2.Input(ctx, jobs.InputRequest{ID: id, Text: "after\n", EOF: true}); err != nil || in.Err != nil {
		t.Fatalf("Input: %v %+v", err, in)
	}
	var got string
	waitFor(t, "new output after the restart", func() bool {
		c, err := m2.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		got += c.Stdout
		return c.Status == jobs.StatusFinished
	})
	if got != "after\n" {
		t.Fatalf("new_only after a restart = %q, want only %q", got, "after\n")
	}
	m3 := managerOn(t, sh, jobs.Options{})
	c, err := m3.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: true})
	if err != nil || c.Text() != "(no new output)\n[status: finished]\n[exit code: 0]" {
		t.Fatalf("new_only after a second restart = %q, %v", c.Text(), err)
	}
	c, _ = m3.Check(ctx, jobs.CheckRequest{ID: id})
	if c.Stdout != "before\nafter\n" {
		t.Fatalf("full output = %q", c.Stdout)
	}
}

// startTicks reads a process's start time in clock ticks since boot.
func startTicks(t *testing.T, pid int) uint64 {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	v, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
