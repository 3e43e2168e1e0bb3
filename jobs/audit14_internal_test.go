package jobs

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestJobTextTrailersSurviveEveryCap: at every cap, a Check, Wait or Stop
// text keeps its exit-code line whole whenever the cap can hold it, never
// cuts a trailer in the middle and never exceeds the cap; the output gives
// way before any trailer. (Keeping only the text's end cut "[exit code: 7]"
// to "e: 7]" at cap 50.)
func TestJobTextTrailersSurviveEveryCap(t *testing.T) {
	seven := 7
	out := strings.Repeat("1234567\n", 300)
	cases := []struct {
		name string
		res  JobResult
	}{
		{"finished", JobResult{ID: "a", Status: StatusFinished, ExitCode: &seven, Stdout: out}},
		{"stopped with notes", JobResult{ID: "a", Status: StatusFinished, ExitCode: &seven, Stopped: true, Stdout: out, Stderr: "boom\n",
			Notes: []string{"The file-size limit (1.0 KiB) ended it.", "12 log bytes were lost: the disk is full."}}},
		{"timed out", JobResult{ID: "a", Status: StatusFinished, ExitCode: &seven, TimedOut: true, Output: out}},
		{"running", JobResult{ID: "a", Status: StatusRunning, Stdout: out}},
	}
	for _, c := range cases {
		r := c.res
		r.maxChars = 0
		full, body := r.Text(), r.sections()
		trailers := strings.Split(strings.TrimPrefix(full, body+"\n"), "\n")
		last := trailers[len(trailers)-1]
		for limit := 1; limit <= utf8.RuneCountInString(full)+3; limit++ {
			r.maxChars = limit
			text := r.Text()
			where := c.name + " cap " + strconv.Itoa(limit)
			if n := utf8.RuneCountInString(text); n > limit {
				t.Fatalf("%s: %d chars: %q", where, n, text)
			}
			if limit >= utf8.RuneCountInString(full) && text != full {
				t.Fatalf("%s: text fits but changed: %q", where, text)
			}
			if limit < utf8.RuneCountInString(last) {
				continue
			}
			// The text is the end of the output (or none), then whole
			// trailers ending with the last one.
			ok := false
			for k := range trailers {
				tail := strings.Join(trailers[k:], "\n")
				if text == tail {
					ok = true
					break
				}
				if prefix, found := strings.CutSuffix(text, "\n"+tail); found {
					_, kept, marked := strings.Cut(prefix, " chars]\n")
					if !marked {
						kept = prefix
					}
					if strings.HasSuffix(body, kept) {
						ok = true
						break
					}
				}
			}
			if !ok {
				t.Fatalf("%s: a trailer is lost or cut: %q", where, text)
			}
		}
	}
}

// TestPromotedTextKeepsTheIDAtEveryCap: a promoted command's text never
// exceeds the cap, cuts no trailer in the middle, and names the job's ID
// whenever the cap can hold the short note (keeping only the end cut the
// note, the one line with the ID, first).
func TestPromotedTextKeepsTheIDAtEveryCap(t *testing.T) {
	id := "0123456789abcdef0123456789abcdef"
	r := RunResult{Promoted: true, ID: id, After: 1500 * time.Millisecond, Stdout: strings.Repeat("line\n", 100)}
	full := r.Text()
	short := "[It continues in the background as command ID " + id + ".]"
	body := (&JobResult{Stdout: r.Stdout}).sections()
	lines := strings.Split(strings.TrimPrefix(full, body+"\n"), "\n")
	known := map[string]bool{short: true}
	for _, l := range lines {
		known[l] = true
	}
	for limit := 1; limit <= utf8.RuneCountInString(full)+3; limit++ {
		r.maxChars = limit
		text := r.Text()
		where := "cap " + strconv.Itoa(limit)
		if n := utf8.RuneCountInString(text); n > limit {
			t.Fatalf("%s: %d chars: %q", where, n, text)
		}
		if limit >= utf8.RuneCountInString(full) && text != full {
			t.Fatalf("%s: fits but changed: %q", where, text)
		}
		if limit < utf8.RuneCountInString(short) {
			continue
		}
		if !strings.Contains(text, "command ID "+id) {
			t.Fatalf("%s: the ID is lost: %q", where, text)
		}
		// From the first trailer on, every line is a whole trailer.
		tl := strings.Split(text, "\n")
		i := len(tl)
		for i > 0 && known[tl[i-1]] {
			i--
		}
		if i == len(tl) {
			t.Fatalf("%s: the last line is not a whole trailer: %q", where, text)
		}
		rest := strings.Join(tl[:i], "\n")
		if _, kept, marked := strings.Cut(rest, " chars]\n"); marked {
			rest = kept
		}
		if !strings.HasSuffix(body, rest) {
			t.Fatalf("%s: before the trailers %q is not the output's end", where, rest)
		}
	}
}

// TestResultJSONKeepsCommandsReadable: job results render < > & as they
// are for an encoder that does not escape HTML (the CLI's --json), as
// Shell.Run's JSON does, not as \u003c escapes.
func TestResultJSONKeepsCommandsReadable(t *testing.T) {
	const cmd = "a > b && c < d"
	for name, v := range map[string]any{
		"StartResult": StartResult{Command: cmd}, "JobResult": JobResult{Command: cmd},
		"ShellResult": ShellResult{Command: cmd}, "InputResult": InputResult{ID: cmd},
	} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), cmd) {
			t.Errorf("%s: %s", name, b.String())
		}
	}
}
