package temporal

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/internal/safefs"
)

// Foreground records. A worker killed with SIGKILL leaves its foreground
// commands running (unless the Shell has DieWithProcess), and Temporal
// retries their activities on the restarted worker: the first attempt's
// process group must not outlive it. So each Run records, as its command
// starts, the command's process group and start time, with the activity
// and the worker process, in <workspace>/.shellcap/temporal/foreground/,
// and removes the record when the command ends. NewWorker sweeps every
// served workspace: a record whose worker is alive is that worker's; one
// whose command's leader is alive with the recorded start time has its
// group killed (SIGKILL), then is removed; a stale one is removed. The
// state directory is inside the workspace, where commands can write, so
// every record carries an HMAC-SHA256 (over the workspace path, the
// record's name and its body) under a key kept outside the workspace; a
// record that cannot be parsed or verified is logged and left alone,
// never acted on.

const (
	foregroundDir     = "temporal/foreground"
	foregroundKeyName = "temporal-foreground.key"
	foregroundKeyLen  = 32
	foregroundVersion = 1
	maxRecordBytes    = 16 << 10
)

// fgRecord is one foreground command in flight.
type fgRecord struct {
	Version int `json:"version"`
	// PGID is the command's process group (its shell leads it);
	// StartTicks the shell's start time (proc.Info.StartTicks).
	PGID       int    `json:"pgid"`
	StartTicks uint64 `json:"start_ticks"`
	// WorkerPID and WorkerTicks identify the worker process that ran it.
	WorkerPID   int    `json:"worker_pid"`
	WorkerTicks uint64 `json:"worker_start_ticks"`
	Host        string `json:"host"`
	WorkflowID  string `json:"workflow_id"`
	RunID       string `json:"run_id"`
	ActivityID  string `json:"activity_id"`
	Attempt     int32  `json:"attempt"`
	Command     string `json:"command,omitempty"`
}

type signedRecord struct {
	Record json.RawMessage `json:"record"`
	MAC    string          `json:"mac"`
}

// foreground writes, removes and sweeps the records of one worker.
type foreground struct {
	host   string
	key    []byte
	self   proc.Info
	logger *slog.Logger
}

func newForeground(host, keyDir string, logger *slog.Logger) (*foreground, error) {
	key, err := loadForegroundKey(keyDir)
	if err != nil {
		return nil, err
	}
	self, err := proc.Stat(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("temporal: this process's start time: %w", err)
	}
	return &foreground{host: host, key: key, self: self, logger: logger}, nil
}

func (f *foreground) mac(workspace, name string, body []byte) string {
	h := hmac.New(sha256.New, f.key)
	for _, p := range [][]byte{[]byte(workspace), []byte(name), body} {
		h.Write([]byte(strconv.Itoa(len(p)) + ":"))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// track returns the OnStart of a command the current activity runs in w,
// which records the command, and finish, which removes the record once the
// command has ended. A record that cannot be written is logged: the
// command still runs (the sweep is a second line behind the Shell's own
// process-group handling).
func (f *foreground) track(ctx context.Context, w *workspace, command string) (onStart func(pid int), finish func()) {
	var (
		mu   sync.Mutex
		dir  *safefs.Dir
		name string
	)
	onStart = func(pid int) {
		info := activity.GetInfo(ctx)
		st, err := proc.Stat(pid)
		if err != nil {
			f.logger.Warn("shellcap: cannot record a foreground command", "workspace", w.path, "pid", pid, "error", err)
			return
		}
		rec := fgRecord{
			Version: foregroundVersion, PGID: pid, StartTicks: st.StartTicks,
			WorkerPID: f.self.PID, WorkerTicks: f.self.StartTicks, Host: f.host,
			WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID,
			ActivityID: info.ActivityID, Attempt: info.Attempt, Command: command,
		}
		d, n, err := f.write(w.path, rec)
		if err != nil {
			f.logger.Warn("shellcap: cannot record a foreground command", "workspace", w.path, "pid", pid, "error", err)
			return
		}
		mu.Lock()
		dir, name = d, n
		mu.Unlock()
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if dir == nil {
			return
		}
		if err := dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.logger.Warn("shellcap: cannot remove a foreground record", "record", dir.Join(name), "error", err)
		}
		dir.Close()
		dir = nil
	}
	return onStart, finish
}

func (f *foreground) write(workspace string, rec fgRecord) (*safefs.Dir, string, error) {
	st, err := safefs.OpenState(workspace, true)
	if err != nil {
		return nil, "", err
	}
	defer st.Close()
	d, err := st.MkdirAll(foregroundDir, 0o700)
	if err != nil {
		return nil, "", err
	}
	var rnd [16]byte
	_, _ = rand.Read(rnd[:])
	name := hex.EncodeToString(rnd[:]) + ".json"
	body, err := json.Marshal(rec)
	if err != nil {
		d.Close()
		return nil, "", err
	}
	data, err := json.Marshal(signedRecord{Record: body, MAC: f.mac(workspace, name, body)})
	if err != nil {
		d.Close()
		return nil, "", err
	}
	if err := d.WriteFileExclusive(name, data, 0o600); err != nil {
		d.Close()
		return nil, "", err
	}
	return d, name, nil
}

// read verifies and parses the record name of workspace.
func (f *foreground) read(d *safefs.Dir, workspace, name string) (fgRecord, error) {
	var rec fgRecord
	data, err := d.ReadFile(name, maxRecordBytes)
	if err != nil {
		return rec, err
	}
	var sr signedRecord
	if err := json.Unmarshal(data, &sr); err != nil {
		return rec, fmt.Errorf("not a foreground record: %w", err)
	}
	want := f.mac(workspace, name, sr.Record)
	if !hmac.Equal([]byte(want), []byte(sr.MAC)) {
		return rec, errors.New("its signature does not verify: this host did not write it")
	}
	if err := json.Unmarshal(sr.Record, &rec); err != nil {
		return rec, fmt.Errorf("malformed record: %w", err)
	}
	if rec.Version != foregroundVersion || rec.PGID <= 1 || rec.StartTicks == 0 {
		return rec, fmt.Errorf("record version %d, pgid %d, start %d: not one this worker understands", rec.Version, rec.PGID, rec.StartTicks)
	}
	return rec, nil
}

// sweep acts on the records left in workspace by workers that are gone:
// it kills the process group of a command still running and removes the
// record of one that ended. What it cannot verify it logs and leaves.
func (f *foreground) sweep(workspace string) {
	if _, err := os.Lstat(filepath.Join(workspace, safefs.StateDirName)); errors.Is(err, fs.ErrNotExist) {
		return
	}
	st, err := safefs.OpenState(workspace, false)
	if err != nil {
		f.logger.Warn("shellcap: cannot sweep foreground records", "workspace", workspace, "error", err)
		return
	}
	defer st.Close()
	d, err := st.OpenDir(foregroundDir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		f.logger.Warn("shellcap: cannot sweep foreground records", "workspace", workspace, "error", err)
		return
	}
	defer d.Close()
	names, err := d.ReadDirNames()
	if err != nil {
		f.logger.Warn("shellcap: cannot sweep foreground records", "workspace", workspace, "error", err)
		return
	}
	for _, name := range names {
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue // a temporary file of a write in progress, or not ours
		}
		rec, err := f.read(d, workspace, name)
		if err != nil {
			f.logger.Warn("shellcap: foreground record left alone", "record", d.Join(name), "error", err)
			continue
		}
		f.settle(d, name, rec)
	}
}

// settle acts on one verified record.
func (f *foreground) settle(d *safefs.Dir, name string, rec fgRecord) {
	if w, err := proc.Stat(rec.WorkerPID); err == nil && w.StartTicks == rec.WorkerTicks && w.State != 'Z' {
		return // the worker that runs the command is alive: its record
	}
	leader, err := proc.Stat(rec.PGID)
	switch {
	case err == nil && leader.StartTicks == rec.StartTicks && leader.PGID == rec.PGID:
		if err := proc.SignalGroup(rec.PGID, syscall.SIGKILL); err != nil {
			f.logger.Warn("shellcap: cannot kill an orphaned foreground command", "pgid", rec.PGID, "error", err)
			return
		}
		waitGroupGone(rec.PGID, time.Second)
		f.logger.Info("shellcap: killed the process group of an interrupted foreground command",
			"pgid", rec.PGID, "workflow_id", rec.WorkflowID, "activity_id", rec.ActivityID, "attempt", rec.Attempt)
	case err == nil && leader.StartTicks == rec.StartTicks:
		// The leader left its group: its group is not the one recorded.
		f.logger.Warn("shellcap: an interrupted foreground command's shell changed process group; left alone", "pid", rec.PGID)
	case proc.GroupExists(rec.PGID):
		// The leader is gone but processes remain in a group of that
		// ID: they cannot be told from a later group that reused it.
		f.logger.Warn("shellcap: an interrupted foreground command's shell is gone but its group is not; left alone", "pgid", rec.PGID)
	}
	if err := d.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.logger.Warn("shellcap: cannot remove a foreground record", "record", d.Join(name), "error", err)
	}
}

// waitGroupGone waits up to d until no live process is left in group pgid
// (zombies wait for their new parent to reap them).
func waitGroupGone(pgid int, d time.Duration) {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if members, err := proc.GroupMembers(pgid, 0); err != nil || len(members) == 0 {
			return
		}
	}
}

// loadForegroundKey reads the key that signs foreground records from the
// key directory (jobs.Options.KeyDir, or the same default), making it on
// first use.
func loadForegroundKey(dir string) ([]byte, error) {
	dir = defaultKeyDir(dir)
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("temporal: key directory %q is not absolute", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("temporal: key directory: %w", err)
	}
	d, err := safefs.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("temporal: key directory: %w", err)
	}
	defer d.Close()
	for range 2 {
		data, err := d.ReadFile(foregroundKeyName, foregroundKeyLen)
		if err == nil {
			fi, err := d.Lstat(foregroundKeyName)
			if err != nil {
				return nil, fmt.Errorf("temporal: foreground record key: %w", err)
			}
			if fi.Mode().Perm()&0o077 != 0 || len(data) != foregroundKeyLen {
				return nil, fmt.Errorf("temporal: the foreground record key %s is not a private %d-byte file: remove it to make a new one", d.Join(foregroundKeyName), foregroundKeyLen)
			}
			return data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("temporal: foreground record key: %w", err)
		}
		key := make([]byte, foregroundKeyLen)
		_, _ = rand.Read(key)
		if err := d.WriteFileExclusive(foregroundKeyName, key, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("temporal: foreground record key: %w", err)
		}
	}
	return nil, errors.New("temporal: foreground record key: cannot be read back")
}

// defaultKeyDir is jobs' default key directory: dir when set, else
// $XDG_STATE_HOME/shellcap, else ~/.local/state/shellcap, else
// shellcap-<uid> in the temporary directory.
func defaultKeyDir(dir string) string {
	if dir != "" {
		return dir
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "shellcap")
	}
	if h := os.Getenv("HOME"); filepath.IsAbs(h) && h != "/" {
		return filepath.Join(h, ".local", "state", "shellcap")
	}
	return filepath.Join(os.TempDir(), "shellcap-"+strconv.Itoa(os.Geteuid()))
}
