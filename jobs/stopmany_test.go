//go:build linux

package jobs_test

import (
	"os"
	"sync"
	"testing"

	"github.com/shellcap/shellcap/jobs"
)

// Ten concurrent Stops of one job all return its final result, and so
// does a Stop that comes after its files were removed.
func TestConcurrentStopsAllReturnTheFinalResult(t *testing.T) {
	m := newManager(t, jobs.Options{})
	id := start(t, m, jobs.StartRequest{Command: "echo up; sleep 300"})
	waitOutput(t, m, id, "up")
	results := make([]*jobs.JobResult, 10)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			res, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
			if err != nil {
				t.Errorf("Stop: %v", err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	late, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range append(results, late) {
		if res == nil || res.Err != nil || !res.Stopped || res.ExitCode == nil || *res.ExitCode != 143 || res.Stdout != "up\n" {
			t.Errorf("Stop %d = %q", i, res.Text())
		}
	}
}

// A Stop with Keep, then one without: the second removes the files and
// still reports the final result.
func TestStopKeepThenRemove(t *testing.T) {
	m := newManager(t, jobs.Options{})
	id := start(t, m, jobs.StartRequest{Command: "echo up; sleep 300"})
	waitOutput(t, m, id, "up")
	kept, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id, Keep: true})
	if err != nil || !kept.Kept || kept.Dir == "" {
		t.Fatalf("Stop with Keep: %+v, %v", kept, err)
	}
	removed, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil || removed.Kept || removed.ExitCode == nil || *removed.ExitCode != 143 || removed.Stdout != "up\n" {
		t.Fatalf("Stop after Stop with Keep: %q, %v", removed.Text(), err)
	}
	if _, err := os.Stat(kept.Dir); !os.IsNotExist(err) {
		t.Fatalf("the job's files are still there: %v", err)
	}
}

// Ten Managers on one workspace and key directory (as ten `shellcap stop`
// processes are) stop one job at once: every one gets its final result,
// none "unknown ID" or a false "directory deleted", and so does a Manager
// made after the job's files were removed.
func TestConcurrentStopsAcrossManagers(t *testing.T) {
	ws, keys := t.TempDir(), t.TempDir()
	opts := jobs.Options{KeyDir: keys}
	owner := managerOn(t, newShell(t, ws), opts)
	id := start(t, owner, jobs.StartRequest{Command: "echo up; sleep 300"})
	waitOutput(t, owner, id, "up")
	managers := make([]*jobs.Manager, 10)
	for i := range managers {
		managers[i] = managerOn(t, newShell(t, ws), opts)
	}
	results := make([]*jobs.JobResult, len(managers))
	var wg sync.WaitGroup
	for i, m := range managers {
		wg.Go(func() {
			res, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
			if err != nil {
				t.Errorf("Stop: %v", err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	late, err := managerOn(t, newShell(t, ws), opts).Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range append(results, late) {
		if res == nil || res.Err != nil || !res.Stopped || res.Status != jobs.StatusFinished ||
			res.ExitCode == nil || *res.ExitCode != 143 || res.Stdout != "up\n" || len(res.Notes) != 0 {
			t.Errorf("Stop %d = %q", i, res.Text())
		}
	}
}
