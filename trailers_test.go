package shellcap_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
)

// TestTrailersSurviveEveryCap: at every TextLimit, with the end or both
// ends kept, the exit-code line is whole whenever the cap can hold it, no
// trailer is ever cut in the middle, and the text never exceeds the cap.
// The kept-output note gives way (shortened to a workspace-relative path,
// then dropped) before any other trailer.
func TestTrailersSurviveEveryCap(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxOutputChars: 200})
	ran := run(t, sh, shellcap.Request{Command: "seq 1 2000; exit 7"})
	if ran.StdoutFile == "" || len(ran.Notes) != 1 {
		t.Fatalf("want one kept-output note, got file %q notes %q", ran.StdoutFile, ran.Notes)
	}
	rel := ran.StdoutFile[strings.LastIndex(ran.StdoutFile, "/.shellcap/")+1:]
	timedOut := *ran
	timedOut.ExitCode, timedOut.TimedOut, timedOut.Timeout = -1, true, 1500*time.Millisecond
	extra := *ran
	extra.Notes = append([]string{"Background processes are still running: 42 (sleep)."}, ran.Notes...)
	cases := []struct {
		name   string
		res    shellcap.Result
		status string
	}{
		{"exit code", *ran, "[exit code: 7]"},
		{"timeout", timedOut, "[Command timed out after 1.5s]"},
		{"two notes", extra, "[exit code: 7]"},
	}
	for _, c := range cases {
		for _, ht := range []bool{false, true} {
			r := c.res
			r.HeadAndTail = ht
			r.TextLimit = 0
			full := r.Text()
			allowed := map[string]bool{c.status: true}
			for _, n := range r.Notes {
				allowed["["+n+"]"] = true
			}
			allowed["[Output truncated; full stdout: "+rel+"]"] = true
			allowed["[Output truncated; full stdout: "+rel+" (grep it or read parts with sed -n 'A,Bp')]"] = true
			for limit := 1; limit <= utf8.RuneCountInString(full)+5; limit++ {
				r.TextLimit = limit
				text := r.Text()
				where := c.name + " head-and-tail=" + strconv.FormatBool(ht) + " cap " + strconv.Itoa(limit)
				if n := utf8.RuneCountInString(text); n > limit {
					t.Fatalf("%s: %d chars: %q", where, n, text)
				}
				if limit < utf8.RuneCountInString(c.status) {
					continue
				}
				i := strings.Index(text, c.status)
				if i < 0 {
					t.Fatalf("%s: status line lost: %q", where, text)
				}
				for _, line := range strings.Split(text[i:], "\n") {
					if !allowed[line] {
						t.Fatalf("%s: trailer %q is cut or unknown in %q", where, line, text)
					}
				}
				if limit >= utf8.RuneCountInString(full) && text != full {
					t.Fatalf("%s: text fits but changed: %q", where, text)
				}
			}
		}
	}
}

// TestTrailersAtSmallCaps is the case: at caps 200 and 50 the
// exit-code line is whole; at 200 the kept file is still named.
func TestTrailersAtSmallCaps(t *testing.T) {
	for _, tt := range []struct {
		limit    int
		wantFile bool
	}{{200, true}, {50, false}} {
		sh := newShell(t, shellcap.Options{MaxOutputChars: tt.limit})
		res := run(t, sh, shellcap.Request{Command: "seq 1 2000; exit 7"})
		text := res.Text()
		if !strings.Contains(text, "\n[exit code: 7]") && !strings.HasPrefix(text, "[exit code: 7]") {
			t.Fatalf("cap %d: exit code lost: %q", tt.limit, text)
		}
		if got := strings.Contains(text, ".shellcap/output/"); got != tt.wantFile {
			t.Fatalf("cap %d: kept file named = %v: %q", tt.limit, got, text)
		}
		if utf8.RuneCountInString(text) > tt.limit {
			t.Fatalf("cap %d: %d chars", tt.limit, utf8.RuneCountInString(text))
		}
	}
}
