package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// runTrue runs `bash -c true` in ws, sandboxed or not.
func runTrue(tb testing.TB, ws string, sandboxed bool) {
	cmd := exec.Command("/bin/bash", "-c", "true")
	cmd.Dir = ws
	cmd.Env = baseEnv(ws)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if sandboxed {
		if _, err := Wrap(cmd, Config{Workspace: ws}); err != nil {
			tb.Fatal(err)
		}
	}
	err := cmd.Start()
	closeExtra(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkTrue(b *testing.B) {
	ws := b.TempDir()
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			runTrue(b, ws, false)
		}
	})
	b.Run("sandboxed", func(b *testing.B) {
		if c := Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
			b.Skip("no full sandbox here")
		}
		for b.Loop() {
			runTrue(b, ws, true)
		}
	})
}

// TestOverheadFigures logs the median of 100 interleaved runs of a plain
// and a sandboxed `bash -c true` when SCTEST_SANDBOX_FIGURES is set. It
// asserts nothing about time.
func TestOverheadFigures(t *testing.T) {
	if os.Getenv("SCTEST_SANDBOX_FIGURES") == "" {
		t.Skip("set SCTEST_SANDBOX_FIGURES=1 to measure")
	}
	requireSandbox(t)
	ws := t.TempDir()
	var plain, boxed []time.Duration
	for i := 0; i < 100; i++ {
		s := time.Now()
		runTrue(t, ws, false)
		plain = append(plain, time.Since(s))
		s = time.Now()
		runTrue(t, ws, true)
		boxed = append(boxed, time.Since(s))
	}
	slices.Sort(plain)
	slices.Sort(boxed)
	mp, mb := plain[len(plain)/2], boxed[len(boxed)/2]
	t.Logf("bash -c true, median of 100 interleaved: plain %v, sandboxed %v (%.2fx)", mp, mb, float64(mb)/float64(mp))
}
