//go:build linux

package jobs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap/jobs"
)

func TestStartCheckStop(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "echo out; echo err >&2; sleep 100"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ID) != 32 {
		t.Fatalf("ID %q is not 32 hex digits", res.ID)
	}
	want := "Started background command: 'echo out; echo err >&2; sleep 100'\nID: " + res.ID
	if res.Text() != want {
		t.Fatalf("Start text = %q, want %q", res.Text(), want)
	}
	waitFor(t, "both streams", func() bool {
		c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID})
		if err != nil {
			t.Fatal(err)
		}
		return c.Stdout == "out\n" && c.Stderr == "err\n"
	})
	c, _ := m.Check(ctx, jobs.CheckRequest{ID: res.ID})
	if got, want := c.Text(), "[stdout]\nout\n\n[stderr]\nerr\n\n[status: running]"; got != want {
		t.Fatalf("Check text = %q, want %q", got, want)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatalf("JobResult does not marshal: %v", err)
	}
	s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Text(), "[stdout]\nout\n\n[stderr]\nerr\n\n[stopped]\n[exit code: 143]"; got != want {
		t.Fatalf("Stop text = %q, want %q", got, want)
	}
	if _, err := os.Stat(res.Dir); !os.IsNotExist(err) {
		t.Fatalf("job directory still there after Stop: %v", err)
	}
	c, _ = m.Check(ctx, jobs.CheckRequest{ID: res.ID})
	if got, want := c.Text(), "[Error: unknown command ID '"+res.ID+"']"; got != want {
		t.Fatalf("Check after Stop = %q, want %q", got, want)
	}
}

func TestStateDirectoryLayout(t *testing.T) {
	sh := newShell(t, "")
	m := managerOn(t, sh, jobs.Options{})
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: "sleep 100"})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %v", err, res)
	}
	if want := filepath.Join(sh.Workspace(), ".shellcap", "jobs", res.ID); res.Dir != want {
		t.Fatalf("Dir = %q, want %q", res.Dir, want)
	}
	for _, d := range []string{res.Dir, filepath.Dir(res.Dir)} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: mode %v, err %v; want 0700", d, fi.Mode(), err)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(sh.Workspace(), ".shellcap", ".gitignore"))
	if err != nil || strings.TrimSpace(string(ignore)) != "*" {
		t.Fatalf(".gitignore = %q, %v", ignore, err)
	}
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(res.Dir, "status.json"))
	if err != nil || json.Unmarshal(data, &st) != nil {
		t.Fatalf("status.json: %v %s", err, data)
	}
	for _, k := range []string{"pid", "pgid", "start_ticks", "started_at", "exit_code", "supervisor_pid"} {
		if _, ok := st[k]; !ok {
			t.Errorf("status.json lacks %q: %s", k, data)
		}
	}
	if st["pid"].(float64) != float64(res.PID) || st["state"] != "running" {
		t.Errorf("status.json = %s, want pid %d running", data, res.PID)
	}
}

func TestUnknownAndMalformedIDs(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	for _, id := range []string{
		"x", "", "../../../etc", strings.Repeat("A", 32), strings.Repeat("0", 31),
		strings.Repeat("0", 33), strings.Repeat("0", 30) + "/.", "0123456789abcdef0123456789abcdef",
	} {
		want := "[Error: unknown command ID " + pyRepr(id) + "]"
		c, err := m.Check(ctx, jobs.CheckRequest{ID: id})
		if err != nil || c.Text() != want {
			t.Errorf("Check(%q) = %q, %v; want %q", id, c.Text(), err, want)
		}
		w, err := m.Wait(ctx, id, time.Millisecond)
		if err != nil || w.Text() != want {
			t.Errorf("Wait(%q) = %q, %v", id, w.Text(), err)
		}
		s, err := m.Stop(ctx, jobs.StopRequest{ID: id})
		if err != nil || s.Text() != want {
			t.Errorf("Stop(%q) = %q, %v", id, s.Text(), err)
		}
		in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "x", EOF: true})
		if err != nil || in.Text() != want {
			t.Errorf("Input(%q) = %q, %v", id, in.Text(), err)
		}
	}
}

// pyRepr is Python's repr for the simple strings the tests use.
func pyRepr(s string) string { return "'" + s + "'" }

func TestInputNewOnlyAndEOF(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "cat; echo done-$?", Stdin: true})
	in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "one\n"})
	if err != nil || in.Err != nil || in.Bytes != 4 {
		t.Fatalf("Input: %v %+v", err, in)
	}
	waitOutput(t, m, id, "one\n")
	if _, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "two\n"}); err != nil {
		t.Fatal(err)
	}
	var got string
	waitFor(t, "new output two", func() bool {
		c, err := m.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		got += c.Stdout
		return strings.Contains(got, "two")
	})
	if got != "two\n" {
		t.Fatalf("new_only output = %q, want only %q", got, "two\n")
	}
	c, _ := m.Check(ctx, jobs.CheckRequest{ID: id, NewOnly: true})
	if want := "(no new output)\n[status: running]"; c.Text() != want {
		t.Fatalf("new_only with nothing new = %q, want %q", c.Text(), want)
	}
	in, err = m.Input(ctx, jobs.InputRequest{ID: id, Text: "three\n", EOF: true})
	if err != nil || in.Err != nil || !in.EOF {
		t.Fatalf("Input with eof: %v %+v", err, in)
	}
	w, err := m.Wait(ctx, id, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[stdout]\none\ntwo\nthree\ndone-0\n\n[status: finished]\n[exit code: 0]"; w.Text() != want {
		t.Fatalf("Wait = %q, want %q", w.Text(), want)
	}
	in, _ = m.Input(ctx, jobs.InputRequest{ID: id, Text: "late"})
	if !strings.Contains(in.Text(), "has finished") {
		t.Fatalf("Input after finish = %q", in.Text())
	}
}

func TestInputErrors(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	noPipe := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	in, err := m.Input(ctx, jobs.InputRequest{ID: noPipe, Text: "x"})
	if err != nil || !strings.Contains(in.Text(), "was not started with stdin: pipe") {
		t.Fatalf("Input without pipe = %q, %v", in.Text(), err)
	}
	// A job that keeps running after its stdin closed.
	id := start(t, m, jobs.StartRequest{Command: "cat; sleep 100", Stdin: true})
	if in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: "", EOF: true}); err != nil || in.Err != nil {
		t.Fatalf("eof: %v %+v", err, in)
	}
	in, err = m.Input(ctx, jobs.InputRequest{ID: id, Text: "more"})
	if err != nil || !strings.Contains(in.Text(), "already closed") {
		t.Fatalf("Input after eof = %q, %v", in.Text(), err)
	}
}

func TestWait(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	slow := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	w, err := m.Wait(ctx, slow, 50*time.Millisecond)
	if err != nil || !w.WaitTimedOut || w.Text() != "(no output yet)\n[status: running]" {
		t.Fatalf("Wait on a running job = %q (%+v), %v", w.Text(), w, err)
	}
	quick := start(t, m, jobs.StartRequest{Command: "echo hi; exit 3"})
	w, err = m.Wait(ctx, quick, time.Minute)
	if err != nil || w.Text() != "[stdout]\nhi\n\n[status: finished]\n[exit code: 3]" {
		t.Fatalf("Wait = %q, %v", w.Text(), err)
	}
	w, _ = m.Wait(ctx, quick, -time.Second)
	if !strings.Contains(w.Text(), "timeout must be at least 0.001s") {
		t.Fatalf("negative timeout: %q", w.Text())
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	m := newManager(t, jobs.Options{KillGrace: 300 * time.Millisecond})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "trap '' TERM; echo ready; sleep 300"})
	waitOutput(t, m, id, "ready")
	s, err := m.Stop(ctx, jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if s.ExitCode == nil || *s.ExitCode != 137 || s.Signal != "SIGKILL" {
		t.Fatalf("Stop of a TERM-ignoring job = %q (%+v); want exit 137 by SIGKILL", s.Text(), s)
	}
	if want := "[stdout]\nready\n\n[stopped]\n[exit code: 137]"; s.Text() != want {
		t.Fatalf("Stop text = %q, want %q", s.Text(), want)
	}
}

func TestStopKeepAndFinishedJob(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "echo kept; sleep 100"})
	waitOutput(t, m, id, "kept")
	s, err := m.Stop(ctx, jobs.StopRequest{ID: id, Keep: true})
	if err != nil || !s.Kept {
		t.Fatalf("Stop keep: %v %+v", err, s)
	}
	c, err := m.Check(ctx, jobs.CheckRequest{ID: id})
	if err != nil || c.Text() != "[stdout]\nkept\n\n[status: finished]\n[exit code: 143]" {
		t.Fatalf("Check after Stop keep = %q, %v", c.Text(), err)
	}
	// Stopping a finished job reports it and removes it.
	s, err = m.Stop(ctx, jobs.StopRequest{ID: id})
	if err != nil || s.Text() != "[stdout]\nkept\n\n[stopped]\n[exit code: 143]" {
		t.Fatalf("second Stop = %q, %v", s.Text(), err)
	}
	quiet := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	s, _ = m.Stop(ctx, jobs.StopRequest{ID: quiet})
	if s.Text() != "(no output)\n[stopped]\n[exit code: 143]" {
		t.Fatalf("Stop without output = %q", s.Text())
	}
}

func TestStopKillsLeftoversAndFinishedJobsLeaveNothing(t *testing.T) {
	m := newManager(t, jobs.Options{KillGrace: 200 * time.Millisecond})
	ctx := ctxFor(t)
	// The shell exits at once, leaving a background child in its group:
	// the supervisor stops it when the job ends.
	id := start(t, m, jobs.StartRequest{Command: "sleep 300 & echo $!"})
	w, err := m.Wait(ctx, id, time.Minute)
	if err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %+v", err, w)
	}
	// TestMain's leak check finds the sleep if it survived; check here
	// too, to name the culprit.
	pid := strings.TrimSpace(w.Stdout)
	waitFor(t, "leftover "+pid+" to go", func() bool {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		return err != nil || strings.Contains(string(st), ") Z ")
	})
}

func TestList(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	l, err := m.List(ctx)
	if err != nil || l.Text() != "(no background commands)" {
		t.Fatalf("empty List = %q, %v", l.Text(), err)
	}
	a := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	b := start(t, m, jobs.StartRequest{Command: "exit 4"})
	if _, err := m.Wait(ctx, b, time.Minute); err != nil {
		t.Fatal(err)
	}
	l, err = m.List(ctx)
	if err != nil || len(l.Jobs) != 2 {
		t.Fatalf("List = %+v, %v", l, err)
	}
	text := l.Text()
	for _, want := range []string{a + "  running  ", "'sleep 100'", b + "  finished (exit code 4)  ", "'exit 4'"} {
		if !strings.Contains(text, want) {
			t.Errorf("List text %q lacks %q", text, want)
		}
	}
	if _, err := json.Marshal(l); err != nil {
		t.Fatal(err)
	}
}

func TestRetentionRemovesFinishedJobs(t *testing.T) {
	m := newManager(t, jobs.Options{Retention: time.Millisecond})
	ctx := ctxFor(t)
	done := start(t, m, jobs.StartRequest{Command: "true"})
	running := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	if _, err := m.Wait(ctx, done, time.Minute); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // past the 1 ms retention
	l, err := m.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Jobs) != 1 || l.Jobs[0].ID != running {
		t.Fatalf("after retention List = %s; want only the running job", l.Text())
	}
	c, _ := m.Check(ctx, jobs.CheckRequest{ID: done})
	if !strings.HasPrefix(c.Text(), "[Error: unknown command ID") {
		t.Fatalf("Check of an expired job = %q", c.Text())
	}
}

func TestMaxJobs(t *testing.T) {
	m := newManager(t, jobs.Options{MaxJobs: 2})
	ctx := ctxFor(t)
	first := start(t, m, jobs.StartRequest{Command: "sleep 100"})
	start(t, m, jobs.StartRequest{Command: "sleep 100"})
	res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 100"})
	if err != nil || res.ID != "" || !strings.Contains(res.Text(), "2 background commands are already running") {
		t.Fatalf("third Start = %q, %v", res.Text(), err)
	}
	if _, err := m.Stop(ctx, jobs.StopRequest{ID: first}); err != nil {
		t.Fatal(err)
	}
	start(t, m, jobs.StartRequest{Command: "sleep 100"})
}

func TestRefusedCommand(t *testing.T) {
	m := newManager(t, jobs.Options{})
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: "echo a\x00b"})
	if err != nil || res.ID != "" || !strings.Contains(res.Text(), "NUL byte") {
		t.Fatalf("Start with NUL = %q, %v", res.Text(), err)
	}
	res, err = m.Start(ctxFor(t), jobs.StartRequest{Command: "true", Dir: "../.."})
	if err != nil || res.ID != "" || res.Err == nil {
		t.Fatalf("Start outside the workspace = %q, %v", res.Text(), err)
	}
}

func TestSubscribe(t *testing.T) {
	m := newManager(t, jobs.Options{})
	var mu sync.Mutex
	var events []jobs.Event
	unsubscribe := m.Subscribe(func(e jobs.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	})
	defer unsubscribe()
	id := start(t, m, jobs.StartRequest{Command: "exit 7"})
	waitFor(t, "the finished event", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(events) > 0
	})
	mu.Lock()
	e := events[0]
	mu.Unlock()
	if e.ID != id || e.ExitCode == nil || *e.ExitCode != 7 {
		t.Fatalf("event = %+v", e)
	}
	if want := "Background command 'exit 7' (ID: " + id + ") finished with exit code 7."; e.Text() != want {
		t.Fatalf("event text = %q, want %q", e.Text(), want)
	}
}

func TestLogsAreBounded(t *testing.T) {
	const limit = 64 << 10
	m := newManager(t, jobs.Options{MaxLogBytes: limit, MaxOutputChars: 1000})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "seq 1 200000"}) // 1.3 MB
	w, err := m.Wait(ctx, id, 2*time.Minute)
	if err != nil || w.Status != jobs.StatusFinished {
		t.Fatalf("Wait: %v %+v", err, w)
	}
	if !strings.HasSuffix(w.Stdout, "199999\n200000\n") {
		t.Fatalf("tail of stdout = %q", w.Stdout[max(0, len(w.Stdout)-40):])
	}
	if !strings.HasSuffix(w.Text(), "200000\n\n[status: finished]\n[exit code: 0]") || len([]rune(w.Text())) > 1000 {
		t.Fatalf("Text not capped with its status last: %q", w.Text())
	}
	var st struct {
		Bytes   int64 `json:"stdout_bytes"`
		Dropped int64 `json:"stdout_dropped_bytes"`
	}
	data, _ := os.ReadFile(filepath.Join(w.Dir, "status.json"))
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	if st.Bytes != 1288895 || st.Dropped < st.Bytes-limit || st.Dropped > st.Bytes-limit/2 {
		t.Fatalf("status counts %+v; want 1288895 written, all but %d..%d dropped", st, limit/2, limit)
	}
	var sys syscallStat
	if err := statFile(filepath.Join(w.Dir, "stdout.log"), &sys); err != nil {
		t.Fatal(err)
	}
	if sys.size != st.Bytes || sys.blocks*512 > limit+64<<10 {
		t.Fatalf("stdout.log: size %d, %d bytes on disk; want size %d, at most ~%d on disk", sys.size, sys.blocks*512, st.Bytes, limit)
	}
}

func TestBadOptions(t *testing.T) {
	sh := newShell(t, "")
	for _, o := range []jobs.Options{{MaxJobs: -1}, {MaxLogBytes: 100}, {KillGrace: -1}, {Retention: -time.Second}} {
		if m, err := jobs.New(sh, o); err == nil {
			m.Close()
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestInputLargeText(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	id := start(t, m, jobs.StartRequest{Command: "wc -c", Stdin: true})
	text := strings.Repeat("0123456789", 30_000) // several frames
	in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: text, EOF: true})
	if err != nil || in.Err != nil || in.Bytes != len(text) {
		t.Fatalf("Input: %v %+v", err, in)
	}
	w, err := m.Wait(ctx, id, time.Minute)
	if err != nil || strings.TrimSpace(w.Stdout) != "300000" {
		t.Fatalf("wc -c read %q, %v", w.Stdout, err)
	}
}

func TestInputToAJobThatDoesNotRead(t *testing.T) {
	m := newManager(t, jobs.Options{})
	id := start(t, m, jobs.StartRequest{Command: "sleep 300", Stdin: true})
	ctx, cancel := context.WithTimeout(ctxFor(t), 500*time.Millisecond)
	defer cancel()
	in, err := m.Input(ctx, jobs.InputRequest{ID: id, Text: strings.Repeat("x", 1<<20)})
	if err != nil || !strings.Contains(in.Text(), "did not read its input in time") || in.Bytes >= 1<<20 {
		t.Fatalf("Input to a job that does not read = %q (%d bytes), %v", in.Text(), in.Bytes, err)
	}
}

// TestStatusWritesAreAtomic reads the status file while the supervisor
// rewrites it (every time a small log drops bytes): every read parses.
func TestStatusWritesAreAtomic(t *testing.T) {
	m := newManager(t, jobs.Options{MaxLogBytes: 64 << 10})
	ctx := ctxFor(t)
	res, err := m.Start(ctx, jobs.StartRequest{Command: "seq 1 2000000"})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %v", err, res)
	}
	path := filepath.Join(res.Dir, "status.json")
	reads := 0
	for {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			State string `json:"state"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatalf("read %d of status.json is not whole: %v: %q", reads, err, data)
		}
		reads++
		if st.State == "finished" {
			break
		}
	}
	if _, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID}); err != nil {
		t.Fatal(err)
	}
}
