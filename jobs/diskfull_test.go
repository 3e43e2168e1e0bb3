//go:build linux

package jobs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
)

// smallTmpfs mounts a tmpfs of size (e.g. "2m") on a fresh directory and
// unmounts it when the test ends. It needs root.
func smallTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := filepath.Join(t.TempDir(), "ws")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

var lostRE = regexp.MustCompile(`\[(\d+) bytes of the job's output were lost: its log could not be written \(no space left on device\)\.[^\]]*\]`)

// A job that fills the workspace's disk keeps its exit code and final
// status, and Check and Stop say how many log bytes were lost and why.
func TestDiskFullKeepsTheExitCodeAndCountsLostBytes(t *testing.T) {
	ws := smallTmpfs(t, "2m")
	sh := shellWith(t, shellcap.Options{Workspace: ws})
	m := managerOn(t, sh, jobs.Options{})
	const total = 10_000_000
	id := start(t, m, jobs.StartRequest{Command: "head -c " + strconv.Itoa(total) + " /dev/zero | tr '\\0' x; exit 5"})
	wait, err := m.Wait(ctxFor(t), id, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if wait.Status != jobs.StatusFinished || wait.ExitCode == nil || *wait.ExitCode != 5 || wait.SupervisorLost {
		t.Fatalf("Wait: %q", wait.Text())
	}
	check, _ := m.Check(ctxFor(t), jobs.CheckRequest{ID: id})
	data, err := os.ReadFile(filepath.Join(wait.Dir, "status.json"))
	if err != nil || !strings.Contains(string(data), `"state":"finished"`) || !strings.Contains(string(data), `"exit_code":5`) {
		t.Fatalf("status.json: %.300s, %v", data, err)
	}
	stop, _ := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	for _, r := range []*jobs.JobResult{check, stop} {
		sub := lostRE.FindStringSubmatch(r.Text())
		if sub == nil {
			t.Fatalf("no lost-bytes note: %q", r.Text()[max(0, len(r.Text())-400):])
		}
		t.Log(sub[0])
		lost, _ := strconv.ParseInt(sub[1], 10, 64)
		if kept := int64(total) - lost; kept <= 0 || kept > 2<<20 {
			t.Fatalf("%d bytes lost of %d: %q", lost, total, sub[0])
		}
	}
}
