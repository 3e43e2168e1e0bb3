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
		if _, err := wrapCmd(cmd, Config{Workspace: ws}); err != nil {
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

// launchTrue runs `bash -c true` in ws through l.
func launchTrue(tb testing.TB, l *Launcher, ws string) {
	cmd := exec.Command("/bin/bash", "-c", "true")
	cmd.Dir = ws
	cmd.Env = baseEnv(ws)
	p, err := l.Start(cmd)
	if err != nil {
		tb.Fatal(err)
	}
	st, err := p.Wait()
	if err != nil || !st.Success() {
		tb.Fatal(err, st)
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
	b.Run("launcher", func(b *testing.B) {
		if c := Doctor(); !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
			b.Skip("no full sandbox here")
		}
		l, err := NewLauncher(Config{Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		for b.Loop() {
			launchTrue(b, l, ws)
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
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var plain, boxed, launched []time.Duration
	for i := 0; i < 200; i++ {
		s := time.Now()
		runTrue(t, ws, false)
		plain = append(plain, time.Since(s))
		s = time.Now()
		runTrue(t, ws, true)
		boxed = append(boxed, time.Since(s))
		s = time.Now()
		launchTrue(t, l, ws)
		launched = append(launched, time.Since(s))
	}
	med := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	mp, mb, ml := med(plain), med(boxed), med(launched)
	t.Logf("bash -c true, median of 200 interleaved: plain %v, one helper per command %v (%.2fx), launcher %v (%.2fx)",
		mp, mb, float64(mb)/float64(mp), ml, float64(ml)/float64(mp))
}
