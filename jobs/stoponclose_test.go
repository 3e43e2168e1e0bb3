//go:build linux

package jobs_test

import (
	"syscall"
	"testing"

	"github.com/shellcap/shellcap/jobs"
)

// With StopOnClose, Close stops the jobs the Manager started and keeps
// their files; without it they outlive the Manager.
func TestStopOnClose(t *testing.T) {
	for _, tc := range []struct {
		name        string
		stopOnClose bool
	}{{"zero value: jobs outlive the Manager", false}, {"StopOnClose", true}} {
		t.Run(tc.name, func(t *testing.T) {
			sh := newShell(t, "")
			m, err := jobs.New(sh, jobs.Options{StopOnClose: tc.stopOnClose})
			if err != nil {
				t.Fatal(err)
			}
			started, err := m.Start(ctxFor(t), jobs.StartRequest{Command: "echo up; sleep 300"})
			if err != nil || started.ID == "" {
				t.Fatalf("Start: %v %v", started, err)
			}
			waitOutput(t, m, started.ID, "up")
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			later := managerOn(t, sh, jobs.Options{})
			res, err := later.Check(ctxFor(t), jobs.CheckRequest{ID: started.ID})
			if err != nil {
				t.Fatal(err)
			}
			alive := syscall.Kill(started.PID, 0) == nil
			if tc.stopOnClose {
				if alive || res.Status != jobs.StatusFinished || res.ExitCode == nil || *res.ExitCode != 143 || res.Stdout != "up\n" {
					t.Fatalf("after Close: alive %v, Check = %q", alive, res.Text())
				}
				return
			}
			if !alive || res.Status != jobs.StatusRunning {
				t.Fatalf("after Close: alive %v, Check = %q", alive, res.Text())
			}
		})
	}
}
