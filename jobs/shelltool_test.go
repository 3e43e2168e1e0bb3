//go:build linux

package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap/jobs"
)

var handlesRE = regexp.MustCompile("(\\{.*\\})\nPID: (\\d+) \\(use `kill -- -(\\d+)` to stop the whole process tree\\)\nOutput: (\\S+/output\\.log)\nStatus: (\\S+/status\\.json)$")

func TestShellForeground(t *testing.T) {
	m := newManager(t, jobs.Options{})
	var events []jobs.ShellEvent
	res, err := m.ShellTool(ctxFor(t), jobs.ShellRequest{
		Command: "echo hello; echo oops >&2; exit 2",
		Timeout: time.Minute,
		OnEvent: func(e jobs.ShellEvent) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	if !strings.HasPrefix(text, "hello\noops\n{") && !strings.HasPrefix(text, "oops\nhello\n{") {
		t.Fatalf("text = %q", text)
	}
	sub := handlesRE.FindStringSubmatch(text)
	if sub == nil {
		t.Fatalf("no handles in %q", text)
	}
	if sub[2] != fmt.Sprint(res.PID) || sub[3] != fmt.Sprint(res.PGID) || sub[4] != res.OutputPath || sub[5] != res.StatusPath {
		t.Fatalf("handles %q do not match %+v", sub, res)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(sub[1]), &st); err != nil || st["exit_code"] != 2.0 || st["state"] != "finished" {
		t.Fatalf("raw status %s: %v", sub[1], err)
	}
	if !res.Finished || res.ExitCode == nil || *res.ExitCode != 2 {
		t.Fatalf("result %+v", res)
	}
	if len(events) < 2 || events[0].Kind != jobs.ShellStarted || events[0].PID != res.PID || events[len(events)-1].Kind != jobs.ShellFinished {
		t.Fatalf("events %+v", events)
	}
	var output string
	for _, e := range events[1 : len(events)-1] {
		if e.Kind != jobs.ShellOutput {
			t.Fatalf("event %+v between started and finished", e)
		}
		output += e.Text
	}
	fin := events[len(events)-1]
	if len(output) != len("hello\noops\n") || fin.TotalLines == nil || *fin.TotalLines != 2 || fin.Truncated || *fin.ExitCode != 2 {
		t.Fatalf("output events %q, finished %+v", output, fin)
	}
	// The files stay (a model may read them); Stop removes them.
	if _, err := os.Stat(res.OutputPath); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: res.ID}); err != nil {
		t.Fatal(err)
	}
}

func TestShellTruncatesAtALineBoundary(t *testing.T) {
	m := newManager(t, jobs.Options{})
	res, err := m.ShellTool(ctxFor(t), jobs.ShellRequest{Command: "seq 1 20000", Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	const total = 108894 // bytes of `seq 1 20000`
	text := res.Text()
	first, rest, _ := strings.Cut(text, "\n")
	want := fmt.Sprintf("[... output truncated, %d earlier bytes omitted]", res.OmittedBytes)
	if first != want || int64(len(res.Output))+res.OmittedBytes != total || len(res.Output) > 16000 {
		t.Fatalf("first line %q (want %q), %d bytes shown + %d omitted", first, want, len(res.Output), res.OmittedBytes)
	}
	// The shown part starts with a whole number, one more than the last
	// omitted one, and ends with the last.
	if !strings.HasPrefix(rest, fmt.Sprint(lineAt(res.OmittedBytes))+"\n") || !strings.Contains(rest, "19999\n20000\n{") {
		t.Fatalf("shown part starts %q", rest[:20])
	}
	if _, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: res.ID}); err != nil {
		t.Fatal(err)
	}
}

// lineAt returns the number on the line of `seq 1 20000` that starts at
// byte offset off.
func lineAt(off int64) int {
	var pos int64
	for n := 1; ; n++ {
		if pos == off {
			return n
		}
		pos += int64(len(fmt.Sprint(n))) + 1
	}
}

func TestShellBackgroundAndForegroundTimeout(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx := ctxFor(t)
	bg, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "sleep 300", Mode: jobs.Background})
	if err != nil || bg.Finished || !strings.HasPrefix(bg.Text(), "{") {
		t.Fatalf("background = %q, %v", bg.Text(), err)
	}
	fg, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "echo waiting; sleep 300", Timeout: 200 * time.Millisecond})
	if err != nil || fg.Finished || fg.ExitCode != nil {
		t.Fatalf("foreground past its timeout = %q, %v", fg.Text(), err)
	}
	// Both keep running after the call.
	for _, id := range []string{bg.ID, fg.ID} {
		c, err := m.Check(ctx, jobs.CheckRequest{ID: id})
		if err != nil || c.Status != jobs.StatusRunning {
			t.Fatalf("Check %s = %q, %v", id, c.Text(), err)
		}
	}
	for _, bad := range []jobs.ShellRequest{
		{Command: "true", Timeout: 271 * time.Second},
		{Command: "true", Timeout: -1},
		{Command: "true", Mode: "sideways"},
	} {
		res, err := m.ShellTool(ctx, bad)
		if err != nil || res.Err == nil || res.ID != "" {
			t.Errorf("Shell(%+v) = %q, %v", bad, res.Text(), err)
		}
	}
}

func TestShellCancelStopsTheJob(t *testing.T) {
	m := newManager(t, jobs.Options{})
	ctx, cancel := context.WithCancel(ctxFor(t))
	started := make(chan string, 1)
	go func() {
		id := <-started
		for {
			if c, _ := m.Check(context.Background(), jobs.CheckRequest{ID: id}); c != nil && strings.Contains(c.Output, "up") {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := m.ShellTool(ctx, jobs.ShellRequest{Command: "echo up; sleep 300", Timeout: time.Minute, OnEvent: func(e jobs.ShellEvent) {
		if e.Kind == jobs.ShellStarted {
			started <- e.ID
		}
	}})
	if err != context.Canceled {
		t.Fatalf("Shell with a cancelled context: %v", err)
	}
	l, _ := m.List(ctxFor(t))
	if len(l.Jobs) != 0 {
		t.Fatalf("jobs left after cancel: %s", l.Text())
	}
}
