package jobs

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"time"

	"github.com/shellcap/shellcap"
)

// Files in a job directory.
const (
	statusName = "status.json"
	stdoutName = "stdout.log"
	stderrName = "stderr.log"
	outputName = "output.log" // combined stdout and stderr (Shell jobs)
	stdinName  = "stdin"      // FIFO for jobs started with Stdin
	seenName   = "seen.json"  // log offsets already shown to the model
	stopName   = "stop.json"  // the grace a Stop asks for (see writeStopRequest)
)

// The states a job can be in.
const (
	stateRunning  = "running"
	stateFinished = "finished"
)

// status is the job's status file. The supervisor writes it when the
// command has started, when a log drops bytes and when the command has
// exited; the host writes it only for a job whose supervisor is gone.
// Every write replaces the file atomically (temporary file, then rename).
type status struct {
	Version  int    `json:"version"`
	ID       string `json:"id"`
	Command  string `json:"command"`
	State    string `json:"state"`
	Combined bool   `json:"combined,omitempty"`
	Stdin    bool   `json:"stdin,omitempty"`

	// The supervisor process, identified across PID reuse by its start
	// time in clock ticks since boot.
	SupervisorPID        int    `json:"supervisor_pid"`
	SupervisorStartTicks uint64 `json:"supervisor_start_ticks"`

	// The command's shell: it leads its own session and process group.
	PID        int    `json:"pid"`
	PGID       int    `json:"pgid"`
	StartTicks uint64 `json:"start_ticks"`

	StartedAt  time.Time  `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`

	// ExitCode is the shell's exit status, 128+N for signal N; nil while
	// running or when it could not be known (the supervisor was lost).
	ExitCode *int   `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`

	Stopped   bool  `json:"stopped,omitempty"`
	TimedOut  bool  `json:"timed_out,omitempty"`
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// KillGraceMS is the grace between SIGTERM and SIGKILL the supervisor
	// gives the command when it stops it: the starting Manager's
	// Options.KillGrace, then, once a Stop stopped it, the stopping
	// Manager's.
	KillGraceMS int64 `json:"kill_grace_ms,omitempty"`
	// SupervisorLost reports a job whose supervisor died before the
	// command ended; its exit code is unknown.
	SupervisorLost bool `json:"supervisor_lost,omitempty"`
	// MaxFileBytes is the file-size limit the command ran under (the
	// Shell's max_file_bytes); 0 means none.
	MaxFileBytes int64 `json:"max_file_bytes,omitempty"`
	StdinClosed  bool  `json:"stdin_closed,omitempty"`

	// Sandbox is what the Confiner enforces for a confined job (profile,
	// network, layers, downgrades, and what the check after the job
	// quarantined); nil for a job that runs unconfined. With package
	// sandbox's Confiner the command's PID is the sandbox's PID 1 as the
	// host sees it. QuarantineError says what that check could not do.
	Sandbox         *shellcap.Enforcement `json:"sandbox,omitempty"`
	QuarantineError string                `json:"quarantine_error,omitempty"`

	// Bytes written to each log, and the oldest of them dropped to keep the
	// log within MaxLogBytes.
	StdoutBytes   int64 `json:"stdout_bytes"`
	StderrBytes   int64 `json:"stderr_bytes,omitempty"`
	StdoutDropped int64 `json:"stdout_dropped_bytes,omitempty"`
	StderrDropped int64 `json:"stderr_dropped_bytes,omitempty"`
}

const statusVersion = 1

func (s *status) finished() bool { return s.State == stateFinished }

// readStatus reads dir's status file: a regular file of the current user,
// reached without following a symlink, whose MAC under key proves that the
// job store wrote it for this directory. raw is its JSON without the MAC.
func readStatus(key recordKey, dir string) (st *status, raw []byte, err error) {
	d, err := openJobDir(dir)
	if err != nil {
		return nil, nil, err
	}
	defer d.Close()
	data, err := d.ReadFile(statusName, maxStatusBytes)
	if err != nil {
		return nil, nil, err
	}
	body, err := key.verify(dir, data)
	if err != nil {
		return nil, nil, err
	}
	st = &status{}
	if err := json.Unmarshal(body, st); err != nil {
		return nil, nil, err
	}
	if st.Version != statusVersion || !validID(st.ID) || st.ID != filepath.Base(dir) {
		return nil, nil, errors.New("jobs: unrecognised status file")
	}
	return st, append(body, '\n'), nil
}

// writeStatus replaces dir's status file atomically, signed with key.
func writeStatus(key recordKey, dir string, st *status) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	d, err := openJobDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.WriteFileAtomic(statusName, key.sign(dir, data), 0o600)
}

// saveSeen records the log offsets already shown, so that new_only
// continues where it left off after the host restarts. It is best effort.
func saveSeen(dir string, seen [2]int64) {
	data, _ := json.Marshal(seen)
	d, err := openJobDir(dir)
	if err != nil {
		return
	}
	defer d.Close()
	_ = d.WriteFileAtomic(seenName, data, 0o600)
}

// loadSeen reads the offsets saveSeen recorded; zero when there are none
// (or they are not offsets).
func loadSeen(dir string) [2]int64 {
	var seen [2]int64
	d, err := openJobDir(dir)
	if err != nil {
		return seen
	}
	defer d.Close()
	if data, err := d.ReadFile(seenName, 256); err == nil {
		if json.Unmarshal(data, &seen) != nil || seen[0] < 0 || seen[1] < 0 {
			seen = [2]int64{}
		}
	}
	return seen
}
