//go:build linux

package jobs_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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
	// The Manager that started it saw it run; its files went on purpose,
	// not with the workspace.
	if res, err := owner.Check(ctxFor(t), jobs.CheckRequest{ID: id}); err != nil || !errors.Is(res.Err, jobs.ErrUnknownID) {
		t.Errorf("Check after the Stops = %q, %v", res.Text(), err)
	}
}

// The final result a Stop leaves in the key directory, and the stop lock,
// go with Retention; a Stop of an ID that names no job leaves nothing.
func TestStopRecordsGoWithRetention(t *testing.T) {
	ws, keys := t.TempDir(), t.TempDir()
	m := managerOn(t, newShell(t, ws), jobs.Options{KeyDir: keys})
	id := start(t, m, jobs.StartRequest{Command: "echo up; sleep 300"})
	waitOutput(t, m, id, "up")
	if res, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id}); err != nil || res.ExitCode == nil {
		t.Fatalf("Stop: %v %v", res, err)
	}
	if got := stopFiles(t, keys); len(got) != 2 {
		t.Fatalf("after Stop the key directory holds %v, want the final result and the lock", got)
	}
	unknown := "0123456789abcdef0123456789abcdef"
	if res, _ := m.Stop(ctxFor(t), jobs.StopRequest{ID: unknown}); !errors.Is(res.Err, jobs.ErrUnknownID) {
		t.Fatalf("Stop of an unknown ID = %q", res.Text())
	}
	if got := stopFiles(t, keys); len(got) != 2 {
		t.Fatalf("a Stop of an unknown ID left %v", got)
	}
	later := managerOn(t, newShell(t, ws), jobs.Options{KeyDir: keys, Retention: time.Nanosecond})
	if got := stopFiles(t, keys); len(got) != 0 {
		t.Fatalf("Retention left %v", got)
	}
	if res, _ := later.Stop(ctxFor(t), jobs.StopRequest{ID: id}); !errors.Is(res.Err, jobs.ErrUnknownID) {
		t.Fatalf("Stop after Retention = %q", res.Text())
	}
}

// A Stop that cannot take the job's stop lock stops nothing and says why.
func TestStopFailsClosedWithoutItsLock(t *testing.T) {
	keys := t.TempDir()
	m := newManagerKeys(t, keys)
	id := start(t, m, jobs.StartRequest{Command: "echo up; sleep 300"})
	waitOutput(t, m, id, "up")
	lock := filepath.Join(keys, "job-"+id+".lock")
	if err := os.Mkdir(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	res, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
	if err != nil || !errors.Is(res.Err, jobs.ErrStopLock) || !strings.Contains(res.Text(), lock) || !strings.Contains(res.Text(), "was not stopped") {
		t.Fatalf("Stop without its lock = %q, %v", res.Text(), err)
	}
	if res, _ := m.Check(ctxFor(t), jobs.CheckRequest{ID: id}); res.Status != jobs.StatusRunning {
		t.Fatalf("the job after a refused Stop: %q", res.Text())
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if res, _ := m.Stop(ctxFor(t), jobs.StopRequest{ID: id}); res.ExitCode == nil || *res.ExitCode != 143 {
		t.Fatalf("Stop once the lock can be had = %q", res.Text())
	}
}

func newManagerKeys(t *testing.T, keys string) *jobs.Manager {
	t.Helper()
	return managerOn(t, newShell(t, ""), jobs.Options{KeyDir: keys})
}

// stopFiles lists the stop locks and final results in the key directory.
func stopFiles(t *testing.T, keys string) []string {
	t.Helper()
	var got []string
	for _, pat := range []string{"job-*.lock", "job-*.final"} {
		m, err := filepath.Glob(filepath.Join(keys, pat))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m...)
	}
	return got
}

// Concurrent Stops of an ID no job has: each drops the lock file it made,
// and one that opened the file just as another dropped it takes the lock
// again instead of failing. Every Stop says the ID is unknown.
func TestConcurrentStopsOfUnknownID(t *testing.T) {
	m := newManager(t, jobs.Options{})
	const id = "0123456789abcdef0123456789abcdef"
	for round := range 30 {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				res, err := m.Stop(ctxFor(t), jobs.StopRequest{ID: id})
				if err != nil {
					t.Errorf("round %d: Stop: %v", round, err)
					return
				}
				if !errors.Is(res.Err, jobs.ErrUnknownID) {
					t.Errorf("round %d: Stop = %q, want unknown ID", round, res.Text())
				}
			})
		}
		wg.Wait()
	}
}
