package shellcap_test

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
)

// TestCloseStopsWithoutWaitingTheGrace: Close sends SIGTERM and returns
// once the group is gone, not after the whole KillGrace.
//
// The stopped sleep stays a zombie until its new parent reaps it; this
// test makes itself that parent (a child subreaper that reaps late), as
// an init that reaps lazily is, so the zombie is certain to be there.
func TestCloseStopsWithoutWaitingTheGrace(t *testing.T) {
	const grace = time.Minute
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("cannot become a child subreaper: %v", err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	sh := newShell(t, shellcap.Options{KillGrace: grace})
	res := run(t, sh, shellcap.Request{Command: "sleep 100 &"})
	if len(res.LeftRunning) != 1 {
		t.Fatalf("LeftRunning %v", res.LeftRunning)
	}
	start := time.Now()
	sh.Close()
	if took := time.Since(start); took >= grace {
		t.Fatalf("Close took %v, the whole grace", took)
	}
	pid := res.LeftRunning[0]
	if running(pid) {
		t.Fatalf("%d still runs after Close", pid)
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || ws.Signal() != unix.SIGTERM {
		t.Fatalf("reaping %d: %v, status %v", pid, err, ws)
	}
}
