//go:build linux

package jobs_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// TestJobLimitNotesAsShellRun: a job gets the notes Shell.Run gives on
// what the resource limits did (core.LimitNotes): the CPU time limit that
// ended it, and only that (not a SIGKILL of its own); a child the
// file-size limit killed while the script went on; for root, on every
// result, that MaxProcesses does not bind.
func TestJobLimitNotesAsShellRun(t *testing.T) {
	const cpuNote = "CPU time limit reached: cpu_time=1s."
	const childNote = "A process was killed by the file-size limit (max_file_bytes=1024) and the command went on"
	const nprocNote = "[MaxProcesses is not enforced: the kernel exempts root from RLIMIT_NPROC]"
	sh := shellWith(t, shellcap.Options{CPUTime: time.Second, MaxFileBytes: 1024, MaxProcesses: 64})
	m := managerOn(t, sh, jobs.Options{})
	ctx := ctxFor(t)
	root := os.Geteuid() == 0
	for _, c := range []struct {
		command string
		want    string // a note the text must carry
		not     string // one it must not
	}{
		{"while :; do :; done", cpuNote, childNote},
		{"kill -KILL $$", "", cpuNote},
		{"head -c 8192 /dev/zero > big; echo done", childNote, cpuNote},
	} {
		id := start(t, m, jobs.StartRequest{Command: c.command})
		w, err := m.Wait(ctx, id, time.Minute)
		if err != nil || w.Status != jobs.StatusFinished {
			t.Fatalf("%q: Wait: %v %+v", c.command, err, w)
		}
		text := w.Text()
		if c.want != "" && !strings.Contains(text, c.want) || c.not != "" && strings.Contains(text, c.not) {
			t.Errorf("%q: want %q, not %q, in:\n%s", c.command, c.want, c.not, text)
		}
		if strings.Contains(text, nprocNote) != root {
			t.Errorf("%q: root %v, text:\n%s", c.command, root, text)
		}
	}
	// A running job's Check says it too.
	id := start(t, m, jobs.StartRequest{Command: "sleep 300"})
	c, err := m.Check(ctx, jobs.CheckRequest{ID: id})
	if err != nil || strings.Contains(c.Text(), nprocNote) != root {
		t.Errorf("Check of a running job: %v, root %v:\n%s", err, root, c.Text())
	}
}
