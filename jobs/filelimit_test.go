//go:build linux

package jobs_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// A job that SIGXFSZ ends gets the file-size note a foreground command
// gets, in Check, Wait and Stop.
func TestJobFileSizeLimitNote(t *testing.T) {
	sh := shellWith(t, shellcap.Options{MaxFileBytes: 1024})
	m := managerOn(t, sh, jobs.Options{})
	const want = "[File-size limit exceeded: max_file_bytes=1024. Reduce file output before retrying.]"
	for _, command := range []string{
		"head -c 8192 /dev/zero > big",      // a child dies of SIGXFSZ: exit 153
		"exec head -c 8192 /dev/zero > big", // the job's shell itself does
	} {
		fg, err := sh.Run(ctxFor(t), shellcap.Request{Command: command})
		if err != nil || !slices.Contains(fg.Notes, strings.Trim(want, "[]")) {
			t.Fatalf("foreground %q: notes %q, %v", command, fg.Notes, err)
		}
		id := start(t, m, jobs.StartRequest{Command: command})
		wait, err := m.Wait(ctxFor(t), id, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		check, _ := m.Check(ctxFor(t), jobs.CheckRequest{ID: id})
		stop, _ := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
		for _, r := range []*jobs.JobResult{wait, check, stop} {
			if !strings.Contains(r.Text(), "\n"+want+"\n") || !strings.HasSuffix(r.Text(), "[exit code: 153]") {
				t.Errorf("%q: %q", command, r.Text())
			}
		}
	}
	// A job that failed otherwise gets the weaker note, as in the
	// foreground.
	id := start(t, m, jobs.StartRequest{Command: "exit 3"})
	wait, _ := m.Wait(ctxFor(t), id, time.Minute)
	if !strings.Contains(wait.Text(), "[Command failed with max_file_bytes=1024; file writes may have reached the per-file limit.]") {
		t.Errorf("exit 3: %q", wait.Text())
	}
}

// max_file_bytes binds job logs too: what stays on disk of a log is
// within it (to whole 4 KiB blocks), the rest counted as dropped.
func TestJobLogsBoundByMaxFileBytes(t *testing.T) {
	sh := shellWith(t, shellcap.Options{MaxFileBytes: 16 << 10})
	m := managerOn(t, sh, jobs.Options{})
	res, err := m.Start(ctxFor(t), jobs.StartRequest{Command: "head -c 2000000 /dev/zero | tr '\\0' x; echo; echo end"})
	if err != nil || res.ID == "" {
		t.Fatalf("Start: %v %v", res, err)
	}
	wait, err := m.Wait(ctxFor(t), res.ID, time.Minute)
	if err != nil || wait.ExitCode == nil || *wait.ExitCode != 0 || !strings.HasSuffix(wait.Stdout, "x\nend\n") {
		t.Fatalf("Wait: %q, %v", wait.Text(), err)
	}
	var fi syscall.Stat_t
	if err := syscall.Stat(filepath.Join(res.Dir, "stdout.log"), &fi); err != nil {
		t.Fatal(err)
	}
	if used := fi.Blocks * 512; used > 16<<10+4096 {
		t.Fatalf("the log uses %d bytes on disk, over max_file_bytes (16 KiB)", used)
	}
	data, err := os.ReadFile(filepath.Join(res.Dir, "status.json"))
	if err != nil || !strings.Contains(string(data), `"stdout_dropped_bytes":`) {
		t.Fatalf("status %s: %v", data, err)
	}
}
