package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/safefs"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// Jobs with a caller-chosen ID (StartRequest.ID) make a start idempotent:
// an at-least-once caller (a retried Temporal activity, a replayed tool
// call) that starts the same ID again re-attaches to the job the first
// attempt launched instead of starting a second process. Starts of one ID
// serialise on a lock file in the key directory, job-<id>.start, beside
// the stop lock; under it a start looks for the job (its signed status,
// or the final result a Stop left), and only when there is none launches
// it. A job directory without a signed status is a launch that has not
// reported yet or never will (its host was killed mid-launch): the start
// waits for the status up to the launch timeout (with a margin), counted
// from the directory's last change, and only then removes what is left:
// a supervisor starts no command once its launch timed out.

// startLockSuffix names a job's start lock: job-<id>.start.
const startLockSuffix = ".start"

// launchSettle is how long after a job directory last changed a start
// waits for its status: the supervisor starts no command after the
// launch timeout (spec.StartBy), and writes the status right after it
// started one.
const launchSettle = launchTimeout + 5*time.Second

func startLockName(id string) string { return "job-" + id + startLockSuffix }

// DeriveID returns a stable job ID made from parts, for StartRequest.ID:
// the first 32 hex digits of SHA-256 over the parts, each prefixed with
// its length, so that ("ab", "c") and ("a", "bc") differ. A caller derives
// one from what names its call durably, such as a workflow run ID and an
// activity ID, so that a retried call names the same job.
func DeriveID(parts ...string) string {
	h := sha256.New()
	var n [8]byte
	h.Write([]byte("shellcap job id v1\x00"))
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))[:idLen]
}

// invalidID is the refusal of a caller-chosen ID that is not one.
func invalidID(id string) error {
	return refusal(ErrInvalidID, "[Error: the job ID "+textfmt.PyRepr(textfmt.TruncateTail(id, 80))+
		" is not 32 lower-case hexadecimal digits; nothing was started (jobs.DeriveID makes a valid one)]")
}

// idConflict is the refusal of a caller-chosen ID that names a job of
// another command.
func idConflict(id, command string) error {
	return refusal(ErrIDConflict, "[Error: the job ID "+textfmt.PyRepr(id)+" already names another background command, "+
		textfmt.PyRepr(command)+"; nothing was started]")
}

// existing returns the outcome of a start of cfg.id when a job with that
// ID already exists: running, finished, or stopped and removed with its
// final result recorded. ok is false when there is none.
func (m *Manager) existing(cfg startConfig) (out startOutcome, ok bool) {
	id := cfg.id
	if j := m.find(id); j != nil {
		if st, _, err := m.refresh(j); err == nil {
			if st.Command != cfg.command || st.Combined != cfg.combined || st.Stdin != cfg.stdin {
				return startOutcome{refusal: idConflict(id, st.Command)}, true
			}
			return startOutcome{job: j, st: st, reattached: true}, true
		}
	}
	res := m.finalResult(id)
	if res == nil {
		res = m.stoppedResult(id)
	}
	if res == nil {
		return startOutcome{}, false
	}
	if res.Command != cfg.command {
		return startOutcome{refusal: idConflict(id, res.Command)}, true
	}
	return startOutcome{final: res, reattached: true}, true
}

// settleLaunch deals with a job directory of id that has no signed
// status (the start lock is held): a launch by a process that died before
// it learnt the outcome, whose supervisor may still report. It waits for
// the status until launchSettle after the directory last changed; when
// none comes it removes the directory. It returns when id has either a
// status or no directory.
func (m *Manager) settleLaunch(ctx context.Context, id string) error {
	dir := filepath.Join(m.root, id)
	poll := 5 * time.Millisecond
	for {
		if _, _, err := readStatus(m.key, dir); err == nil {
			return nil
		}
		root, err := openJobsRoot(m.ws, false)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		fi, err := root.Lstat(id)
		if errors.Is(err, fs.ErrNotExist) {
			root.Close()
			return nil
		}
		if err != nil {
			root.Close()
			return err
		}
		if time.Since(fi.ModTime()) > launchSettle {
			// Its launch is over: whatever started it has given up
			// on it, or died with it.
			err := root.RemoveAll(id)
			root.Close()
			if err != nil {
				return fmt.Errorf("jobs: cannot remove the failed launch of job %s: %w", id, err)
			}
			return nil
		}
		root.Close()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
			poll = min(2*poll, 100*time.Millisecond)
		}
	}
}

// startLock is a held lock on starting one job.
type startLock struct {
	keyDir, name string
	f            *os.File
}

// release removes the lock file and releases the lock: a start waiting on
// the removed file sees that and takes the lock again on a new one, so no
// lock file outlives the starts.
func (l *startLock) release() {
	if d, err := safefs.OpenRoot(l.keyDir); err == nil {
		if same(l.f, d, l.name) {
			_ = d.Remove(l.name)
		}
		d.Close()
	}
	l.f.Close()
}

// lockStart takes the cross-process lock on starting job id, waiting
// (until ctx ends) for a start of it in progress in this or another
// process.
func (m *Manager) lockStart(ctx context.Context, id string) (*startLock, error) {
	name := startLockName(id)
	fail := func(err error) (*startLock, error) {
		return nil, fmt.Errorf("jobs: the start lock %s cannot be taken: %w", filepath.Join(m.keyDir, name), err)
	}
	d, err := safefs.OpenRoot(m.keyDir)
	if err != nil {
		return fail(err)
	}
	defer d.Close()
	poll := time.Millisecond
	wait := func() error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
			poll = min(2*poll, 50*time.Millisecond)
			return nil
		}
	}
	unsafe := 0
	for {
		f, err := d.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
		if errors.Is(err, safefs.ErrUnsafe) && unsafe < 20 {
			// Most likely the file was opened just as the holder
			// before removed it (it has no link left): try again. A
			// file that stays unsafe (a symlink) is refused.
			unsafe++
			if err := wait(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return fail(err)
		}
		if err := tryLockFile(f); err != nil {
			f.Close()
			if !errors.Is(err, errWouldBlock) {
				return fail(err)
			}
			if err := wait(); err != nil {
				return nil, err
			}
			continue
		}
		// The holder before removed the file it locked: the lock counts
		// only on the file the name still names.
		if same(f, d, name) {
			return &startLock{keyDir: m.keyDir, name: name, f: f}, nil
		}
		f.Close()
	}
}

// removeStaleStartLock removes the start lock name in the key directory d
// when it is older than cutoff and nobody holds it: one left by a process
// that died while it held it (a start that ends removes its own).
func removeStaleStartLock(d *safefs.Dir, name string, cutoff time.Time) {
	id := strings.TrimSuffix(strings.TrimPrefix(name, "job-"), startLockSuffix)
	if !validID(id) {
		return
	}
	if fi, err := d.Lstat(name); err != nil || !fi.ModTime().Before(cutoff) {
		return
	}
	f, err := d.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if tryLockFile(f) == nil && same(f, d, name) {
		_ = d.Remove(name)
	}
}
