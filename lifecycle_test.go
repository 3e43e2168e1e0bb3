package shellcap_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
)

// TestTimeoutKillsTheGroup: a timeout stops every process of the command,
// including ones that ignore SIGTERM, and keeps the output so far.
func TestTimeoutKillsTheGroup(t *testing.T) {
	sh := newShell(t, shellcap.Options{KillGrace: 300 * time.Millisecond})
	res := run(t, sh, shellcap.Request{
		Command: `trap '' TERM; (trap '' TERM; sleep 60) & sleep 60 & echo "spawned $!"; wait`,
		Timeout: 500 * time.Millisecond,
	})
	if !res.TimedOut || !strings.HasPrefix(res.Text(), "[stdout]\nspawned ") || !strings.HasSuffix(res.Text(), "[Command timed out after 0.5s]") {
		t.Fatalf("Text() = %q", res.Text())
	}
	if res.ExitCode != 137 || res.Signal != "SIGKILL" {
		t.Fatalf("a TERM-ignoring shell must end by SIGKILL after the grace: exit %d %s", res.ExitCode, res.Signal)
	}
	if left := markedProcesses(2 * time.Second); len(left) > 0 {
		t.Fatalf("processes survived the timeout: %v", left)
	}
}

func TestContextCancel(t *testing.T) {
	sh := newShell(t, shellcap.Options{KillGrace: 300 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	go func() {
		<-started
		cancel()
	}()
	res, err := sh.Run(ctx, shellcap.Request{
		Command: "echo ready; sleep 60 & sleep 60",
		OnOutput: func(s shellcap.Stream, p []byte) {
			once.Do(func() { close(started) })
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.TimedOut || res.Stdout != "ready\n" || !strings.Contains(res.Text(), "cancelled") {
		t.Fatalf("canceled %v timedOut %v text %q", res.Canceled, res.TimedOut, res.Text())
	}
	if left := markedProcesses(2 * time.Second); len(left) > 0 {
		t.Fatalf("processes survived the cancel: %v", left)
	}
}

// TestBackgroundChildHoldingPipes: the result comes back when the shell
// exits, not when the background child closes the pipes, and names it.
func TestBackgroundChildHoldingPipes(t *testing.T) {
	sh := newShell(t, shellcap.Options{KillGrace: 300 * time.Millisecond})
	res := run(t, sh, shellcap.Request{Command: "sleep 30 & echo hi", Timeout: 20 * time.Second})
	if res.TimedOut || res.Stdout != "hi\n" || len(res.LeftRunning) != 1 {
		t.Fatalf("timedOut %v stdout %q left %v", res.TimedOut, res.Stdout, res.LeftRunning)
	}
	// The child may not have exec'd sleep yet when the shell exits, so its
	// name may still read bash.
	if !strings.Contains(res.Text(), "[Background processes are still running: "+strconv.Itoa(res.LeftRunning[0])+" (") {
		t.Fatalf("no note about the background process: %q", res.Text())
	}
	if err := syscall.Kill(res.LeftRunning[0], 0); err != nil {
		t.Fatalf("the background process should still run: %v", err)
	}
	// Close stops what commands left behind.
	sh.Close()
	if left := markedProcesses(3 * time.Second); len(left) > 0 {
		t.Fatalf("Close left processes running: %v", left)
	}
}

func TestOnOutputStreams(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	var mu sync.Mutex
	got := map[shellcap.Stream]string{}
	run(t, sh, shellcap.Request{Command: "echo a; echo b >&2; echo c", OnOutput: func(s shellcap.Stream, p []byte) {
		mu.Lock()
		got[s] += string(p)
		mu.Unlock()
	}})
	if got[shellcap.Stdout] != "a\nc\n" || got[shellcap.Stderr] != "b\n" {
		t.Fatalf("OnOutput saw %q", got)
	}
}

func TestConcurrentRuns(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := range 20 {
		wg.Go(func() {
			res, err := sh.Run(t.Context(), shellcap.Request{Command: "echo $((" + string(rune('0'+i%10)) + "+1))"})
			if err != nil || res.ExitCode != 0 || res.Stdout == "" {
				errs <- res.Text()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestShellFallbackAndOverride(t *testing.T) {
	sh := newShell(t, shellcap.Options{ShellPath: "sh", MaxFileBytes: 1024})
	res := run(t, sh, shellcap.Request{Command: "echo $0; ulimit -f"})
	if res.Stdout != "sh\n2\n" {
		t.Fatalf("sh with a 1 KiB file limit: %q (want 512-byte blocks)", res.Stdout)
	}
}

func TestCancelledContextStartsNothing(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sh.Run(ctx, shellcap.Request{Command: "touch started"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sh.Workspace(), "started")); err == nil {
		t.Fatal("the command ran")
	}
}
