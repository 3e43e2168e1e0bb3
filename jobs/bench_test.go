//go:build linux

package jobs_test

import (
	"testing"

	"github.com/shellcap/shellcap/jobs"
)

// BenchmarkJobLifecycle measures one job's whole life: Start, Check, Stop
// (with a command that exits on SIGTERM at once).
func BenchmarkJobLifecycle(b *testing.B) {
	m := newManager(b, jobs.Options{})
	ctx := ctxFor(b)
	for b.Loop() {
		res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 100"})
		if err != nil || res.ID == "" {
			b.Fatalf("Start: %v %v", err, res)
		}
		if c, err := m.Check(ctx, jobs.CheckRequest{ID: res.ID}); err != nil || c.Status != jobs.StatusRunning {
			b.Fatalf("Check: %v %+v", err, c)
		}
		if s, err := m.Stop(ctx, jobs.StopRequest{ID: res.ID}); err != nil || s.ExitCode == nil {
			b.Fatalf("Stop: %v %+v", err, s)
		}
	}
}

// BenchmarkJobPhases times Start, Check and Stop separately.
func BenchmarkJobPhases(b *testing.B) {
	m := newManager(b, jobs.Options{})
	ctx := ctxFor(b)
	b.Run("Start", func(b *testing.B) {
		for b.Loop() {
			res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 100"})
			b.StopTimer()
			if err != nil || res.ID == "" {
				b.Fatalf("Start: %v %v", err, res)
			}
			_, _ = m.Stop(ctx, jobs.StopRequest{ID: res.ID})
			b.StartTimer()
		}
	})
	b.Run("Check", func(b *testing.B) {
		res, _ := m.Start(ctx, jobs.StartRequest{Command: "echo hi; sleep 100"})
		for b.Loop() {
			_, _ = m.Check(ctx, jobs.CheckRequest{ID: res.ID})
		}
		_, _ = m.Stop(ctx, jobs.StopRequest{ID: res.ID})
	})
	b.Run("Stop", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			res, err := m.Start(ctx, jobs.StartRequest{Command: "sleep 100"})
			if err != nil || res.ID == "" {
				b.Fatalf("Start: %v %v", err, res)
			}
			b.StartTimer()
			_, _ = m.Stop(ctx, jobs.StopRequest{ID: res.ID})
		}
	})
}
