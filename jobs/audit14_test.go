//go:build linux

package jobs_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap/jobs"
)

// TestJobTextsKeepExitCodeAtSmallCaps is the case for jobs: a job
// running `seq 1 2000; exit 7` reports "[exit code: 7]" whole in Wait,
// Check and Stop at caps 50 and 200 (keeping the text's end kept only
// "e: 7]" at 50).
func TestJobTextsKeepExitCodeAtSmallCaps(t *testing.T) {
	sh := newShell(t, "")
	first := managerOn(t, sh, jobs.Options{})
	id := start(t, first, jobs.StartRequest{Command: "seq 1 2000; exit 7"})
	if res, err := first.Wait(ctxFor(t), id, 30*time.Second); err != nil || res.ExitCode == nil {
		t.Fatalf("Wait: %v %+v", err, res)
	}
	for _, limit := range []int{50, 60, 200} {
		m := managerOn(t, sh, jobs.Options{MaxOutputChars: limit})
		w, err := m.Wait(ctxFor(t), id, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c, err := m.Check(ctxFor(t), jobs.CheckRequest{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range map[string]string{"wait": w.Text(), "check": c.Text()} {
			if !strings.HasSuffix(text, "\n[status: finished]\n[exit code: 7]") && text != "[status: finished]\n[exit code: 7]" {
				t.Errorf("cap %d %s: status lines lost: %q", limit, name, text)
			}
			if n := utf8.RuneCountInString(text); n > limit {
				t.Errorf("cap %d %s: %d chars", limit, name, n)
			}
		}
	}
	m := managerOn(t, sh, jobs.Options{MaxOutputChars: 50})
	s, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if text := s.Text(); !strings.HasSuffix(text, "[stopped]\n[exit code: 7]") || utf8.RuneCountInString(text) > 50 {
		t.Errorf("cap 50 stop: %q", text)
	}
}
