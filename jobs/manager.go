package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/safefs"
)

// ErrClosed reports a call on a Manager after [Manager.Close].
var ErrClosed = errors.New("jobs: manager is closed")

// How often the Manager looks at running jobs (for completion events and
// to reap supervisors) and at expired ones.
const (
	watchInterval = 100 * time.Millisecond
	gcInterval    = time.Minute
	// orphanAge is how old a job directory without a status file must be
	// before it counts as a failed start rather than one in progress.
	orphanAge = 10 * launchTimeout
)

// Manager starts and tracks background jobs in one workspace. Jobs outlive
// the Manager and the process: a new Manager on the same workspace finds
// them. It is safe for concurrent use.
type Manager struct {
	sh       *shellcap.Shell
	opts     Options
	confiner shellcap.Confiner // nil: jobs run unconfined
	root     string            // <workspace>/.shellcap/jobs
	ws       string            // the workspace
	key      recordKey         // signs and checks status files
	keyDir   string            // where the key lives (resolved), outside the workspace

	mu       sync.Mutex
	jobs     map[string]*job
	children map[int]string // supervisors this process started and must reap: PID -> job dir
	subs     map[int]func(Event)
	feeds    map[*stdinFeed]struct{} // Run's stdin copies still going
	// stopped holds the final results of the jobs this Manager stopped,
	// the oldest first in stoppedOrder (at most maxStoppedResults).
	stopped      map[string]*JobResult
	stoppedOrder []string
	nextSub      int
	closed       bool
	lastGC       time.Time

	quit        chan struct{}
	watcherDone chan struct{}
}

// job is what the Manager remembers about one job; the status file is the
// truth.
type job struct {
	id     string
	dir    string
	key    recordKey
	keyDir string // where its supervisor leaves the final status if dir is gone

	inputMu  sync.Mutex // one Input at a time (flock covers other processes)
	stopMu   sync.Mutex // one Stop at a time; the others get its result
	stopped  *JobResult // the result of the Stop that ended it (under stopMu)
	mu       sync.Mutex
	st       *status
	raw      []byte
	seen     [2]int64 // log offsets already shown (new_only)
	done     chan struct{}
	finished atomic.Bool
	notified bool
	// quiet suppresses the finished event of a job whose end is reported
	// directly (Run in the foreground).
	quiet atomic.Bool
	// gone marks a job whose directory vanished while this Manager knew
	// it (under mu); it is then known from memory and the key directory.
	gone bool
	// ours marks a job this Manager started (set before it is shared).
	ours bool
	// fed marks a job whose stdin this Manager copies from a Run request.
	fed atomic.Bool
	// launching marks a job this Manager reserved and is launching: its
	// directory and status may not be there yet, and it is not to be
	// forgotten for that.
	launching atomic.Bool
}

// New returns a Manager for sh's workspace. It adopts the jobs already
// recorded there (started by an earlier process) and removes finished
// ones older than Options.Retention.
func New(sh *shellcap.Shell, opts Options) (*Manager, error) {
	if !supported {
		return nil, shellcap.ErrUnsupported
	}
	if sh == nil {
		return nil, errors.New("jobs: New needs a Shell")
	}
	o := opts
	if err := o.fill(core.Of(sh).Settings); err != nil {
		return nil, err
	}
	key, err := loadRecordKey(o.KeyDir, sh.Workspace())
	if err != nil {
		return nil, err
	}
	kd, err := filepath.EvalSymlinks(keyDir(o.KeyDir))
	if err != nil {
		return nil, fmt.Errorf("jobs: record key directory: %w", err)
	}
	confiner := confinerOf(sh, o.Confiner)
	if confiner != nil {
		// Before any job's sandbox starts: the sandbox hides a state
		// directory that exists, and a confined command must not get
		// the chance to make one (a symlink, say) itself. A workspace
		// where this process cannot make it is one where its confined
		// commands, running as the same user, cannot either.
		if st, err := openJobsRoot(sh.Workspace(), true); err == nil {
			st.Close()
		} else if errors.Is(err, safefs.ErrUnsafe) || writableDir(sh.Workspace()) {
			return nil, fmt.Errorf("jobs: state directory: %w", err)
		}
		if err := checkConfiner(confiner, sh.Workspace()); err != nil {
			return nil, err
		}
	}
	m := &Manager{
		sh:          sh,
		opts:        o,
		confiner:    confiner,
		ws:          sh.Workspace(),
		key:         key,
		keyDir:      kd,
		root:        filepath.Join(sh.Workspace(), safefs.StateDirName, jobsSubdir),
		jobs:        map[string]*job{},
		children:    map[int]string{},
		subs:        map[int]func(Event){},
		feeds:       map[*stdinFeed]struct{}{},
		stopped:     map[string]*JobResult{},
		quit:        make(chan struct{}),
		watcherDone: make(chan struct{}),
	}
	m.scan()
	go m.watch()
	return m, nil
}

// Close stops watching jobs. Jobs keep running; a later Manager on the same
// workspace finds them; with Options.StopOnClose, Close first stops the
// jobs this Manager started (keeping their files). It also stops copying
// the Request.Stdin of promoted Run commands (their stdin stays open,
// without end-of-file), waiting up to a second for copies blocked in the
// reader's Read. It is safe to call more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	if m.opts.StopOnClose {
		m.stopOwn()
	}
	close(m.quit)
	<-m.watcherDone
	m.stopFeeds()
	// Reap supervisors that are just exiting; those still running are
	// reaped by whoever inherits them once this process exits.
	m.reap()
	deadline := time.Now().Add(2 * time.Second)
	m.mu.Lock()
	defer m.mu.Unlock()
	for pid, dir := range m.children {
		st, _, err := readStatus(m.key, dir)
		if err == nil && !st.finished() {
			continue
		}
		for !reapChild(pid) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		delete(m.children, pid)
	}
	return nil
}

// stopOwn stops, all at once, the jobs this Manager started that still
// run, keeping their files.
func (m *Manager) stopOwn() {
	var wg sync.WaitGroup
	for _, j := range m.snapshot() {
		if j.ours && !j.finished.Load() {
			wg.Go(func() { m.stop(StopRequest{ID: j.id, Keep: true}) })
		}
	}
	wg.Wait()
}

// reap reaps the supervisors this process started that have exited.
func (m *Manager) reap() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for pid := range m.children {
		if reapChild(pid) {
			delete(m.children, pid)
		}
	}
}

func (m *Manager) usable() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}

func (m *Manager) snapshot() []*job {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		out = append(out, j)
	}
	return out
}

// ensureRoot creates <workspace>/.shellcap/jobs (0700) with the state
// directory's .gitignore, never through a symlink.
func (m *Manager) ensureRoot() error {
	d, err := openJobsRoot(m.ws, true)
	if err != nil {
		return err
	}
	return d.Close()
}

// newJob is the Manager's record of job id.
func (m *Manager) newJob(id string) *job {
	return &job{id: id, dir: filepath.Join(m.root, id), key: m.key, keyDir: m.keyDir, done: make(chan struct{})}
}

// find returns the job with this ID, adopting it from disk when this
// Manager has not seen it; nil when the ID is malformed or unknown. A
// malformed ID never reaches the file system.
func (m *Manager) find(id string) *job {
	if !validID(id) {
		return nil
	}
	m.mu.Lock()
	j := m.jobs[id]
	m.mu.Unlock()
	dir := filepath.Join(m.root, id)
	if j != nil && j.launching.Load() {
		return j // the start that reserved it forgets it if it fails
	}
	if j != nil {
		d, err := openJobDir(dir)
		if err != nil {
			if !j.removedOnPurpose() && j.orphaned() {
				return j // its files went, it did not: still stoppable
			}
			m.forget(j) // removed by another Manager
			return nil
		}
		d.Close()
		return j
	}
	// Only a record the store signed is a job: a directory the host did
	// not make, or a status file it did not write, is not.
	if _, _, err := readStatus(m.key, dir); err != nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if j := m.jobs[id]; j != nil {
		return j
	}
	j = m.newJob(id)
	j.seen = loadSeen(dir)
	m.jobs[id] = j
	return j
}

// orphaned reports whether j is a job whose directory vanished while it
// ran (or that this Manager saw run when the directory went): it is kept,
// from memory, so that it can be stopped and its end reported.
func (j *job) orphaned() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.gone {
		return true
	}
	st := j.st
	return st != nil && !st.finished() &&
		(alive(st.SupervisorPID, st.SupervisorStartTicks) || alive(st.PID, st.StartTicks) || j.readOrphanStatus() != nil)
}

func (m *Manager) forget(j *job) {
	m.mu.Lock()
	if m.jobs[j.id] == j {
		delete(m.jobs, j.id)
	}
	m.mu.Unlock()
}

// refresh reads the job's status and turns a job whose supervisor and
// command are both gone into a finished one with an unknown exit code. The
// first time it sees a job finished it notifies the subscribers; a job
// whose directory vanished is forgotten.
func (m *Manager) refresh(j *job) (*status, []byte, error) {
	st, raw, fin, err := j.refresh()
	if fin && !j.quiet.Load() {
		m.notify(j, st)
	}
	if errors.Is(err, os.ErrNotExist) {
		j.mu.Lock()
		started := j.st != nil
		j.mu.Unlock()
		if started {
			m.forget(j) // removed behind our back: it no longer counts
		}
	}
	return st, raw, err
}

func (j *job) refresh() (st *status, raw []byte, justFinished bool, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.finished.Load() {
		return j.st, j.raw, false, nil
	}
	st, raw, err = readStatus(j.key, j.dir)
	switch {
	case err == nil:
	case (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && j.st != nil && (j.gone || !j.st.finished()) &&
		!j.removedOnPurpose():
		// The directory went (the workspace was deleted) while the job
		// ran: known from memory and the key directory from now on.
		st, raw = j.orphanStatus()
	default:
		return nil, nil, false, err
	}
	if !j.gone && !st.finished() && !alive(st.SupervisorPID, st.SupervisorStartTicks) {
		// It may have written its final status just before exiting.
		if st2, raw2, err := readStatus(j.key, j.dir); err == nil {
			st, raw = st2, raw2
		}
		if !st.finished() && !alive(st.PID, st.StartTicks) {
			now := time.Now().UTC()
			st.State, st.FinishedAt, st.SupervisorLost, st.ExitCode = stateFinished, &now, true, nil
			_ = writeStatus(j.key, j.dir, st)
			if _, raw2, err := readStatus(j.key, j.dir); err == nil {
				raw = raw2
			}
		}
	}
	j.st, j.raw = st, raw
	if st.finished() {
		j.finished.Store(true)
		close(j.done)
		justFinished = !j.notified
		j.notified = true
	}
	return st, raw, justFinished, nil
}

// runningCount counts the jobs not known to have finished.
func (m *Manager) runningCount() int {
	n := 0
	for _, j := range m.jobs {
		if !j.finished.Load() {
			n++
		}
	}
	return n
}

// watch refreshes running jobs (for completion events and reaping) and
// removes expired ones, until Close.
func (m *Manager) watch() {
	defer close(m.watcherDone)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-m.quit:
			return
		case <-t.C:
		}
		for _, j := range m.snapshot() {
			if !j.finished.Load() {
				_, _, _ = m.refresh(j)
			}
		}
		m.reap()
		m.mu.Lock()
		due := time.Since(m.lastGC) >= gcInterval
		m.mu.Unlock()
		if due {
			m.gc()
		}
	}
}

// jobNames lists the names in the jobs directory, read without following
// a symlink; nil when there is none.
func (m *Manager) jobNames() []string {
	d, err := openJobsRoot(m.ws, false)
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.ReadDirNames()
	return names
}

// scan adopts the jobs recorded on disk and removes expired ones.
func (m *Manager) scan() {
	for _, name := range m.jobNames() {
		if j := m.find(name); j != nil {
			_, _, _ = m.refresh(j)
		}
	}
	m.gc()
}

// gc removes finished jobs older than Retention, and directories that never
// got a status file and are as old.
func (m *Manager) gc() {
	m.mu.Lock()
	m.lastGC = time.Now()
	m.mu.Unlock()
	cutoff := time.Now().Add(-m.opts.Retention)
	m.gcFinals(cutoff)
	for _, j := range m.snapshot() {
		j.mu.Lock()
		expired := j.gone && j.st != nil && j.st.finished() && j.st.FinishedAt != nil && j.st.FinishedAt.Before(cutoff)
		j.mu.Unlock()
		if expired {
			m.remove(j)
		}
	}
	root, err := openJobsRoot(m.ws, false)
	if err != nil {
		return
	}
	defer root.Close()
	names, _ := root.ReadDirNames()
	for _, name := range names {
		if !validID(name) {
			continue
		}
		dir := filepath.Join(m.root, name)
		st, _, err := readStatus(m.key, dir)
		switch {
		case err != nil:
			// No valid status yet: possibly a job being started right
			// now; or not a job at all.
			if fi, err := root.Lstat(name); err == nil && fi.ModTime().Before(cutoff) && time.Since(fi.ModTime()) > orphanAge {
				_ = root.RemoveAll(name)
			}
			continue
		case !st.finished() || st.FinishedAt == nil || !st.FinishedAt.Before(cutoff):
			continue
		}
		m.mu.Lock()
		j := m.jobs[name]
		m.mu.Unlock()
		if j != nil {
			m.forget(j)
		}
		_ = root.RemoveAll(name)
	}
}

// remove deletes a job's directory (and a final status its supervisor
// left in the key directory) and forgets it.
func (m *Manager) remove(j *job) {
	_ = removeJobDir(j.dir)
	removeOrphanStatus(m.keyDir, j.id)
	m.forget(j)
}
