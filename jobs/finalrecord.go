package jobs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/safefs"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Stops of one job from different Managers (separate `shellcap stop`
// processes on one workspace) serialise on a lock file in the key
// directory, job-<id>.lock, outside the job directory a stop removes. The
// Stop that ends a job leaves its final result there, job-<id>.final,
// signed for the job directory, before it removes the job's files; a
// later or concurrent Stop of the same ID, in any Manager, answers from
// it, and a job whose directory went that way is not taken for one whose
// workspace was deleted. Retention removes both files.

const (
	finalSuffix   = ".final"
	lockSuffix    = ".lock"
	finalVersion  = 1
	maxFinalBytes = 4 << 20
)

func finalName(id string) string    { return "job-" + id + finalSuffix }
func stopLockName(id string) string { return "job-" + id + lockSuffix }

// finalRecord is what job-<id>.final holds.
type finalRecord struct {
	Version int         `json:"version"`
	Result  plainResult `json:"result"`
}

// plainResult is a JobResult encoded field by field (Err is not kept: a
// final result has none).
type plainResult JobResult

// stopLockError is a Stop that could not take the job's stop lock.
type stopLockError struct {
	id, path string
	err      error
}

func (e *stopLockError) Error() string {
	return "[Error: command ID " + textfmt.PyRepr(e.id) + " was not stopped: its stop lock " + e.path +
		" cannot be taken (" + e.err.Error() + "); make the key directory writable by this user, then stop it again]"
}

func (e *stopLockError) Unwrap() []error { return []error{ErrStopLock, e.err} }

// stopLock is a held lock on stopping one job.
type stopLock struct {
	keyDir, name string
	f            *os.File
}

// release releases the lock; with drop it first removes the lock file (a
// Stop that found no job leaves nothing behind). A Stop waiting on the
// removed file sees that and takes the lock again on a new one.
func (l *stopLock) release(drop bool) {
	if drop {
		if d, err := safefs.OpenRoot(l.keyDir); err == nil {
			if same(l.f, d, l.name) {
				_ = d.Remove(l.name)
			}
			d.Close()
		}
	}
	l.f.Close() // closing releases the flock
}

// lockStop takes the cross-process lock on stopping job id, waiting for a
// Stop of it in progress (in this or another process) to end.
func (m *Manager) lockStop(id string) (*stopLock, error) {
	name := stopLockName(id)
	fail := func(err error) (*stopLock, error) {
		return nil, &stopLockError{id: id, path: filepath.Join(m.keyDir, name), err: err}
	}
	d, err := safefs.OpenRoot(m.keyDir)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	var unsafe error
	for range 100 {
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if errors.Is(err, safefs.ErrUnsafe) {
			// Most likely opened just as the Stop before dropped it (the
			// file has no link left): try again. A file that stays
			// unsafe (a symlink) is refused once the tries run out.
			unsafe = err
			continue
		}
		if err != nil {
			return fail(err)
		}
		if err := lockFile(f); err != nil {
			f.Close()
			return fail(err)
		}
		// Retention may have removed the file while this one waited:
		// the lock counts only on the file the name still names.
		if same(f, d, name) {
			return &stopLock{keyDir: m.keyDir, name: name, f: f}, nil
		}
		f.Close()
	}
	if unsafe != nil {
		return fail(unsafe)
	}
	return fail(errors.New("the lock file keeps being replaced"))
}

// same reports whether f is the file name in d.
func same(f *os.File, d *safefs.Dir, name string) bool {
	fi, err := d.Lstat(name)
	return err == nil && sameFile(f, fi)
}

// saveFinal records res as the final result of the job in dir, signed
// for dir, in the key directory.
func (m *Manager) saveFinal(dir string, res *JobResult) error {
	data, err := json.Marshal(finalRecord{Version: finalVersion, Result: plainResult(*res)})
	if err != nil {
		return err
	}
	d, err := safefs.OpenRoot(m.keyDir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFileAtomic(finalName(res.ID), m.key.sign(dir, data), 0o600)
}

// readFinal reads the final result a Stop left for job id of this
// workspace; nil when there is none (or it is not this store's).
func readFinal(key recordKey, keyDir, dir, id string) *JobResult {
	if keyDir == "" {
		return nil
	}
	d, err := safefs.OpenRoot(keyDir)
	if err != nil {
		return nil
	}
	defer d.Close()
	data, err := d.ReadFile(finalName(id), maxFinalBytes)
	if err != nil {
		return nil
	}
	body, err := key.verify(dir, data)
	if err != nil {
		return nil
	}
	var rec finalRecord
	if json.Unmarshal(body, &rec) != nil || rec.Version != finalVersion || rec.Result.ID != id {
		return nil
	}
	res := JobResult(rec.Result)
	return &res
}

// finalResult is readFinal for job id of m's workspace, with m's output
// cap.
func (m *Manager) finalResult(id string) *JobResult {
	res := readFinal(m.key, m.keyDir, filepath.Join(m.root, id), id)
	if res != nil {
		res.maxChars = m.opts.MaxOutputChars
	}
	return res
}

// removedOnPurpose reports whether a Stop removed j's directory after
// recording its final result.
func (j *job) removedOnPurpose() bool {
	return readFinal(j.key, j.keyDir, j.dir, j.id) != nil
}

// stopFinal answers a Stop of a job whose final result is recorded: the
// files of a job stopped before with Keep go now unless keep is set. The
// stop lock is held.
func (m *Manager) stopFinal(id string, res *JobResult, keep bool) *JobResult {
	if res.Kept && !keep {
		res.Kept, res.Dir = false, ""
		if err := m.saveFinal(filepath.Join(m.root, id), res); err != nil {
			res.Kept, res.Dir = true, filepath.Join(m.root, id)
			return res
		}
		if j := m.find(id); j != nil {
			m.remove(j)
		} else {
			_ = removeJobDir(filepath.Join(m.root, id))
		}
	}
	return res
}

// gcFinals removes the final results (and stop locks) of this
// workspace's jobs recorded before cutoff.
func (m *Manager) gcFinals(cutoff time.Time) {
	d, err := safefs.OpenRoot(m.keyDir)
	if err != nil {
		return
	}
	defer d.Close()
	names, _ := d.ReadDirNames()
	for _, name := range names {
		if id, ok := strings.CutPrefix(name, "job-"); ok && strings.HasSuffix(id, startLockSuffix) {
			removeStaleStartLock(d, name, cutoff)
			continue
		}
		id, ok := strings.CutPrefix(name, "job-")
		if id, ok = strings.CutSuffix(id, finalSuffix); !ok || !validID(id) {
			continue
		}
		fi, err := d.Lstat(name)
		if err != nil || !fi.ModTime().Before(cutoff) || m.finalResult(id) == nil {
			continue
		}
		f, err := d.OpenFile(stopLockName(id), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			continue
		}
		if tryLockFile(f) == nil && same(f, d, stopLockName(id)) {
			_ = d.Remove(name)
			_ = d.Remove(stopLockName(id))
		}
		f.Close()
	}
}
