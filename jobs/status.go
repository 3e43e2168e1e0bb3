package jobs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/shellcap/shellcap/sandbox"
)

// Files in a job directory.
const (
	statusName = "status.json"
	stdoutName = "stdout.log"
	stderrName = "stderr.log"
	outputName = "output.log" // combined stdout and stderr (Shell jobs)
	stdinName  = "stdin"      // FIFO for jobs started with Stdin
	seenName   = "seen.json"  // log offsets already shown to the model
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
	// SupervisorLost reports a job whose supervisor died before the
	// command ended; its exit code is unknown.
	SupervisorLost bool `json:"supervisor_lost,omitempty"`
	StdinClosed    bool `json:"stdin_closed,omitempty"`

	// Sandbox is what the sandbox enforces for a confined job (profile,
	// network, layers, downgrades); nil for a job that runs unconfined. The
	// command's PID is then the sandbox's PID 1 as the host sees it.
	Sandbox *sandbox.Report `json:"sandbox,omitempty"`

	// Bytes written to each log, and the oldest of them dropped to keep the
	// log within MaxLogBytes.
	StdoutBytes   int64 `json:"stdout_bytes"`
	StderrBytes   int64 `json:"stderr_bytes,omitempty"`
	StdoutDropped int64 `json:"stdout_dropped_bytes,omitempty"`
	StderrDropped int64 `json:"stderr_dropped_bytes,omitempty"`
}

const statusVersion = 1

func (s *status) finished() bool { return s.State == stateFinished }

// readStatus reads dir's status file.
func readStatus(dir string) (*status, []byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, statusName))
	if err != nil {
		return nil, nil, err
	}
	var st status
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, nil, err
	}
	if st.Version != statusVersion || !validID(st.ID) {
		return nil, nil, errors.New("jobs: unrecognised status file")
	}
	return &st, data, nil
}

// writeStatus replaces dir's status file atomically.
func writeStatus(dir string, st *status) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".status-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, statusName))
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// saveSeen records the log offsets already shown, so that new_only
// continues where it left off after the host restarts. It is best effort.
func saveSeen(dir string, seen [2]int64) {
	data, _ := json.Marshal(seen)
	f, err := os.CreateTemp(dir, ".seen-*.tmp")
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, seenName))
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
}

// loadSeen reads the offsets saveSeen recorded; zero when there are none.
func loadSeen(dir string) [2]int64 {
	var seen [2]int64
	if data, err := os.ReadFile(filepath.Join(dir, seenName)); err == nil {
		_ = json.Unmarshal(data, &seen)
	}
	return seen
}
