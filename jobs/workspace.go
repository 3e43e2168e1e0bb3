package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/safefs"
)

// A job's files live in the workspace, which may be deleted (or replaced
// by a file) while the job runs. What Stop needs then is kept where that
// does not take it: the Manager's memory holds each job's last status (its
// supervisor and process group, as the signed record said), so the job
// stays stoppable; and a supervisor that cannot record how the job ended
// in the job directory records it, signed, in the key directory (outside
// the workspace), where the Manager picks it up.

// workspaceGoneError is a start in a workspace that no longer exists or is
// no longer a directory.
type workspaceGoneError struct {
	ws     string
	isFile bool
}

func (e *workspaceGoneError) Error() string {
	if e.isFile {
		return "jobs: the workspace " + e.ws + " is no longer a directory (something replaced it); no command can start there"
	}
	return "jobs: the workspace " + e.ws + " no longer exists; no command can start there"
}

func (e *workspaceGoneError) Unwrap() error { return shellcap.ErrWorkspaceGone }

// checkWorkspace returns an error matching shellcap.ErrWorkspaceGone when
// the workspace is gone or no longer a directory, as Shell.Run refuses it:
// a start never re-creates it.
func (m *Manager) checkWorkspace() error {
	fi, err := os.Stat(m.ws)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return &workspaceGoneError{ws: m.ws, isFile: true}
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return &workspaceGoneError{ws: m.ws}
	}
	return fmt.Errorf("jobs: the workspace %s: %w", m.ws, err)
}

// orphanName is the name, in the key directory, of the final status of job
// id when its job directory could not take it.
func orphanName(id string) string { return "job-" + id + ".status" }

// writeOrphanStatus records st, signed for the job directory dir, in the
// key directory keyDir: the supervisor's last resort when the job
// directory is gone.
func writeOrphanStatus(key recordKey, keyDir, dir string, st *status) error {
	if keyDir == "" {
		return errors.New("jobs: no key directory")
	}
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	d, err := safefs.OpenRoot(keyDir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFileAtomic(orphanName(st.ID), key.sign(dir, data), 0o600)
}

// readOrphanStatus reads the final status a supervisor left in the key
// directory for job j, if any, verified against j's directory.
func (j *job) readOrphanStatus() *status {
	if j.keyDir == "" {
		return nil
	}
	d, err := safefs.OpenRoot(j.keyDir)
	if err != nil {
		return nil
	}
	defer d.Close()
	data, err := d.ReadFile(orphanName(j.id), maxStatusBytes)
	if err != nil {
		return nil
	}
	body, err := j.key.verify(j.dir, data)
	if err != nil {
		return nil
	}
	st := &status{}
	if json.Unmarshal(body, st) != nil || st.ID != j.id || st.Version != statusVersion {
		return nil
	}
	return st
}

// removeOrphanStatus removes what writeOrphanStatus left for job id.
func removeOrphanStatus(keyDir, id string) {
	if keyDir == "" {
		return
	}
	if d, err := safefs.OpenRoot(keyDir); err == nil {
		_ = d.Remove(orphanName(id))
		d.Close()
	}
}

// orphanStatus is the status of a job whose directory vanished while this
// Manager knew it (j.st is its last status): the final status its
// supervisor left in the key directory; else the last status while its
// supervisor or command lives (it can still be stopped); else finished
// with an unknown exit code. j.mu is held.
func (j *job) orphanStatus() (*status, []byte) {
	last := *j.st
	st := j.readOrphanStatus()
	if st == nil && !last.finished() && (alive(last.SupervisorPID, last.SupervisorStartTicks) || alive(last.PID, last.StartTicks)) {
		st = &last
	}
	if st == nil {
		st = j.readOrphanStatus() // written just before the supervisor exited
	}
	if st == nil {
		st = &last
		if !st.finished() {
			now := time.Now().UTC()
			st.State, st.FinishedAt, st.ExitCode = stateFinished, &now, nil
		}
	}
	j.gone = true
	raw, _ := json.Marshal(st)
	return st, append(raw, '\n')
}

// goneNote is the note of a job whose directory vanished.
const goneNote = "The job's directory (its logs and status) was deleted while it ran, with the workspace or by a command; its output is lost."
