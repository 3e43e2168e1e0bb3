//go:build linux

package jobs_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/shellcap/shellcap/jobs"
)

// A finished job's Event carries the end of its output, from a line start,
// and its Text shows it after the sentence.
func TestEventCarriesTheOutputTail(t *testing.T) {
	m := newManager(t, jobs.Options{})
	events := make(chan jobs.Event, 1)
	defer m.Subscribe(func(e jobs.Event) { events <- e })()
	id := start(t, m, jobs.StartRequest{Command: "seq 1 3000; echo oops >&2; exit 7"})
	e := <-events
	if e.ID != id || !strings.HasPrefix(e.Tail, "[stdout]\n") || !strings.HasSuffix(e.Tail, "\n2999\n3000\n[stderr]\noops\n") || len(e.Tail) > 2100 {
		t.Fatalf("tail %q", e.Tail)
	}
	lines := strings.SplitN(strings.TrimPrefix(e.Tail, "[stdout]\n"), "\n", 3)
	a, err1 := strconv.Atoi(lines[0])
	b, err2 := strconv.Atoi(lines[1])
	if err1 != nil || err2 != nil || b != a+1 {
		t.Fatalf("tail does not start at a line: %q", e.Tail)
	}
	want := "Background command 'seq 1 3000; echo oops >&2; exit 7' (ID: " + id + ") finished with exit code 7.\nThe end of its output:\n" + strings.TrimSuffix(e.Tail, "\n")
	if e.Text() != want {
		t.Fatalf("Text = %q", e.Text())
	}
}
