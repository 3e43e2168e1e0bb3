package shellcap_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/proc"
)

// running reports whether pid is a process that has not exited (a zombie
// nobody reaps has).
func running(pid int) bool {
	info, err := proc.Stat(pid)
	return err == nil && info.State != 'Z' && info.State != 'X'
}

// TestStopBackground: a one-shot caller's Run stops what the command left
// in the background, as soon as it is gone, and does not tell the model to
// kill a group that is already stopped.
func TestStopBackground(t *testing.T) {
	const grace = time.Minute
	sh := newShell(t, shellcap.Options{KillGrace: grace})
	res := run(t, sh, shellcap.Request{Command: "sleep 100 & echo $!", StopBackground: true})
	pid, err := strconv.Atoi(strings.TrimSpace(res.Stdout))
	if err != nil {
		t.Fatalf("stdout %q", res.Stdout)
	}
	text := res.Text()
	if strings.Contains(text, "kill --") || !strings.Contains(text, "[Background processes were stopped when the command ended: "+strconv.Itoa(pid)+" (") {
		t.Fatalf("text: %q", text)
	}
	if len(res.LeftRunning) != 0 || running(pid) {
		t.Fatalf("LeftRunning %v, %d running %v", res.LeftRunning, pid, running(pid))
	}
	// sleep dies of the SIGTERM at once: Run does not sit out the grace.
	if res.Duration >= grace {
		t.Fatalf("Run took %v, the whole grace", res.Duration)
	}
}
