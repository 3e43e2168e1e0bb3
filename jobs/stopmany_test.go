//go:build linux

package jobs_test

import (
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
