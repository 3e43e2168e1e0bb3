package shellcap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
)

func TestMaxFileBytes(t *testing.T) {
	var before unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &before); err != nil {
		t.Fatal(err)
	}
	sh := newShell(t, shellcap.Options{MaxFileBytes: 4096})

	t.Run("hit", func(t *testing.T) {
		res := run(t, sh, shellcap.Request{Command: "head -c 10000 /dev/zero > big; exit $?"})
		want := "File-size limit exceeded: max_file_bytes=4096. Reduce file output before retrying."
		if !strings.Contains(res.Text(), "[exit code: 153]\n["+want+"]") {
			t.Fatalf("Text() = %q, want the exit code then %q", res.Text(), want)
		}
		fi, err := os.Stat(filepath.Join(sh.Workspace(), "big"))
		if err != nil || fi.Size() != 4096 {
			t.Fatalf("big: %v size %d, want 4096 bytes", err, fi.Size())
		}
	})
	t.Run("killed directly", func(t *testing.T) {
		res := run(t, sh, shellcap.Request{Command: "exec head -c 10000 /dev/zero > big2"})
		if res.Signal != "SIGXFSZ" || !strings.Contains(res.Text(), "File-size limit exceeded") {
			t.Fatalf("signal %q text %q", res.Signal, res.Text())
		}
	})
	t.Run("not hit", func(t *testing.T) {
		res := run(t, sh, shellcap.Request{Command: "head -c 1000 /dev/zero > small && wc -c < small"})
		if res.Text() != "[stdout]\n1000\n" {
			t.Fatalf("Text() = %q", res.Text())
		}
	})
	t.Run("other failure mentions the limit", func(t *testing.T) {
		res := run(t, sh, shellcap.Request{Command: "exit 1"})
		if !strings.HasSuffix(res.Text(), "[exit code: 1]\n[Command failed with max_file_bytes=4096; file writes may have reached the per-file limit.]") {
			t.Fatalf("Text() = %q", res.Text())
		}
	})
	t.Run("child sees the limit, host does not", func(t *testing.T) {
		res := run(t, sh, shellcap.Request{Command: "ulimit -f; ulimit -H -f"})
		if res.Stdout != "4\n4\n" {
			t.Fatalf("ulimit in the command = %q, want 4 KiB blocks soft and hard", res.Stdout)
		}
		var after unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &after); err != nil || after != before {
			t.Fatalf("host limit changed: %+v -> %+v (%v)", before, after, err)
		}
	})
}

func TestMemoryLimit(t *testing.T) {
	sh := newShell(t, shellcap.Options{MemoryLimit: 64 << 20})
	res := run(t, sh, shellcap.Request{Command: "ulimit -v; x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived ${#x}"})
	if strings.Contains(res.Stdout, "survived 200000000") || res.ExitCode == 0 && !strings.HasPrefix(res.Stdout, "65536\n") {
		t.Fatalf("allocation beyond the limit succeeded:\n%s", res.Text())
	}
	if !strings.HasPrefix(res.Stdout, "65536\n") {
		t.Fatalf("ulimit -v in the command = %q, want 65536", res.Stdout)
	}
}

func TestCPUTimeLimit(t *testing.T) {
	sh := newShell(t, shellcap.Options{CPUTime: time.Second})
	res := run(t, sh, shellcap.Request{Command: "while :; do :; done", Timeout: time.Minute})
	if res.TimedOut || res.ExitCode == 0 || !strings.Contains(res.Text(), "CPU time limit reached: cpu_time=1s.") {
		t.Fatalf("busy loop under a 1 s CPU limit:\n%s", res.Text())
	}
}

func TestMaxProcessesReportsRoot(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxProcesses: 64})
	res := run(t, sh, shellcap.Request{Command: "ulimit -u"})
	if res.Stdout != "64\n" {
		t.Fatalf("ulimit -u = %q, want 64", res.Stdout)
	}
	if got := len(sh.Warnings()) > 0; got != (os.Geteuid() == 0) {
		t.Fatalf("Warnings() = %v for euid %d", sh.Warnings(), os.Geteuid())
	}
}

// TestFileSizeLimitOfAChild: a child killed by SIGXFSZ while the script
// goes on (its exit status lost, in a pipeline too) is named in the result.
func TestFileSizeLimitOfAChild(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxFileBytes: 1024})
	for _, command := range []string{
		"head -c 8192 /dev/zero > big; echo done",
		"head -c 8192 /dev/zero | cat > big; echo done",
	} {
		res := run(t, sh, shellcap.Request{Command: command})
		if res.ExitCode != 0 || !strings.Contains(res.Stdout, "done") ||
			!strings.Contains(res.Text(), "[A process was killed by the file-size limit (max_file_bytes=1024) and the command went on") {
			t.Fatalf("%s:\n%s", command, res.Text())
		}
	}
	if res := run(t, sh, shellcap.Request{Command: "head -c 100 /dev/zero > small; echo done"}); res.Text() != "[stdout]\ndone\n" {
		t.Fatalf("within the limit:\n%s", res.Text())
	}
}

// TestSIGKILLIsNotBlamedOnTheCPULimit: only what RLIMIT_CPU ended gets the
// CPU-time note; a SIGKILL from elsewhere, long before the limit, does not.
func TestSIGKILLIsNotBlamedOnTheCPULimit(t *testing.T) {
	sh := newShell(t, shellcap.Options{CPUTime: 30 * time.Second})
	res := run(t, sh, shellcap.Request{Command: "kill -KILL $$"})
	if res.ExitCode != 137 || strings.Contains(res.Text(), "CPU time limit") {
		t.Fatalf("a SIGKILL under a 30 s CPU limit:\n%s", res.Text())
	}
}

// TestMaxProcessesUnenforcedIsInTheResult: for root, whom the kernel
// exempts from RLIMIT_NPROC, every result says the limit does not bind.
func TestMaxProcessesUnenforcedIsInTheResult(t *testing.T) {
	sh := newShell(t, shellcap.Options{MaxProcesses: 64})
	res := run(t, sh, shellcap.Request{Command: "true"})
	has := strings.Contains(res.Text(), "[MaxProcesses is not enforced: the kernel exempts root from RLIMIT_NPROC]")
	if root := os.Geteuid() == 0; has != root || len(sh.Warnings()) > 0 != root {
		t.Fatalf("root %v, warnings %q, text:\n%s", root, sh.Warnings(), res.Text())
	}
}
