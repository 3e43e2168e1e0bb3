//go:build linux

package jobs_test

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap/jobs"
)

// shellEvents runs command through the shell tool in the foreground and
// returns the result and the concatenated text of its output events.
func shellEvents(t *testing.T, m *jobs.Manager, command string) (*jobs.ShellResult, string, []string) {
	t.Helper()
	var chunks []string
	res, err := m.ShellTool(ctxFor(t), jobs.ShellRequest{Command: command, Timeout: time.Minute, OnEvent: func(e jobs.ShellEvent) {
		if e.Kind == jobs.ShellOutput {
			chunks = append(chunks, e.Text)
		}
	}})
	if err != nil || res.Err != nil {
		t.Fatalf("Shell(%q): %v, %v", command, err, res.Err)
	}
	t.Cleanup(func() { _, _ = m.Stop(ctxFor(t), jobs.StopRequest{ID: res.ID}) })
	return res, strings.Join(chunks, ""), chunks
}

// Output that is all there by the first look still gets its events: the
// first 16,000 bytes, from the first byte, in chunks of at most 4,096.
func TestShellEventsDrainFromTheFirstByte(t *testing.T) {
	m := newManager(t, jobs.Options{})
	_, got, chunks := shellEvents(t, m, "seq 1 20000")
	want, err := exec.Command("seq", "1", "20000").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want[:16000]) {
		t.Fatalf("events carry %d bytes (%q...), want the first 16000 of the output", len(got), got[:min(len(got), 40)])
	}
	for _, c := range chunks {
		if len(c) > 4096 {
			t.Fatalf("an event of %d bytes", len(c))
		}
	}
}

// Chunks are cut on UTF-8 boundaries: three-byte characters survive every
// cut, and a character the command left incomplete is shown as U+FFFD.
func TestShellEventsCutOnUTF8Boundaries(t *testing.T) {
	m := newManager(t, jobs.Options{})
	res, got, chunks := shellEvents(t, m, `for i in $(seq 3000); do printf '€'; done; echo`)
	if want := strings.Repeat("€", 3000) + "\n"; got != want {
		t.Fatalf("events: %d bytes, %d U+FFFD, want %d bytes of euros", len(got), strings.Count(got, "\uFFFD"), len(want))
	}
	for _, c := range chunks {
		if !utf8.ValidString(c) || strings.Contains(c, "\uFFFD") {
			t.Fatalf("a chunk cut inside a character: %q", c[:min(len(c), 12)])
		}
	}
	if strings.Contains(res.Output, "\uFFFD") {
		t.Fatal("the result's output has U+FFFD")
	}

	res, got, _ = shellEvents(t, m, `printf 'ab\342\202'`)
	if got != "ab\uFFFD" || res.Output != "ab\uFFFD" {
		t.Fatalf("a trailing partial character: events %q, output %q; want both %q", got, res.Output, "ab\uFFFD")
	}
}

// The handles come last, so a small output cap keeps them whole.
func TestShellHandlesSurviveTheCap(t *testing.T) {
	m := newManager(t, jobs.Options{MaxOutputChars: 600})
	res, _, _ := shellEvents(t, m, "seq 1 20000")
	text := res.Text()
	if utf8.RuneCountInString(text) > 600 {
		t.Fatalf("text of %d characters over the cap", utf8.RuneCountInString(text))
	}
	tail := regexp.MustCompile("\nPID: (\\d+) \\(use `kill -- -(\\d+)` to stop the whole process tree\\)\nOutput: (\\S+)\nStatus: (\\S+)$")
	sub := tail.FindStringSubmatch(text)
	if sub == nil || sub[1] != itoa(res.PID) || sub[3] != res.OutputPath || sub[4] != res.StatusPath {
		t.Fatalf("the handles are not whole at the end of %q", text)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
