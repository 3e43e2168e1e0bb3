package jobs

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/safefs"
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
// Every write replaces the file atomically (temporary file, then rename),
// padded with spaces to reserve room: when the disk is full (the job's
// own output may have filled it) the write goes instead into the reserved
// room of the existing file, so the final state and exit code survive.
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
	// CPUTimeMS, MemoryLimit and MaxProcesses are the Shell's other
	// limits the command ran under (cpu_time, memory_limit,
	// max_processes); CPUUsedMS is the CPU time the command's shell and
	// the children it waited for used, once it ended.
	CPUTimeMS    int64  `json:"cpu_time_ms,omitempty"`
	MemoryLimit  int64  `json:"memory_limit,omitempty"`
	MaxProcesses int    `json:"max_processes,omitempty"`
	CPUUsedMS    *int64 `json:"cpu_used_ms,omitempty"`
	StdinClosed  bool   `json:"stdin_closed,omitempty"`

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
	// Bytes of output that never reached each log because writing it
	// failed (a full disk), and why, as the system said it.
	StdoutLost int64  `json:"stdout_lost_bytes,omitempty"`
	StderrLost int64  `json:"stderr_lost_bytes,omitempty"`
	LogError   string `json:"log_error,omitempty"`
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
	var body []byte
	for try := 0; ; try++ {
		data, err := d.ReadFile(statusName, maxStatusBytes)
		if err == nil {
			body, err = key.verify(dir, bytes.TrimRight(data, " "))
			if err == nil {
				break
			}
		}
		if try == statusReadTries-1 || errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		// A file being replaced (opened just as the rename unlinked it:
		// no link left) or rewritten in place (a full disk) may have
		// been caught midway: look again.
		time.Sleep(time.Millisecond)
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

// statusReadTries is how often readStatus reads a status file whose MAC
// does not match before it gives up.
const statusReadTries = 3

// statusReserve is the room, beyond its content rounded up to whole 4 KiB
// blocks, that every status file reserves (as trailing spaces) for later
// states when the disk is full.
const statusReserve = 16 << 10

// writeStatus replaces dir's status file atomically, signed with key. When
// that fails (a full disk), it rewrites the existing file in place within
// the room reserved by its padding.
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
	signed := key.sign(dir, data)
	size := (len(signed)+4095)/4096*4096 + statusReserve
	err = d.WriteFileAtomic(statusName, padSpaces(signed, size), 0o600)
	if err == nil {
		return nil
	}
	if ierr := rewriteInPlace(d, statusName, signed); ierr != nil {
		return err
	}
	return nil
}

// rewriteInPlace overwrites the file name with data padded with spaces to
// the file's length, allocating nothing; it fails when data does not fit.
func rewriteInPlace(d *safefs.Dir, name string, data []byte) error {
	f, err := d.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if int64(len(data)) > fi.Size() {
		return errors.New("jobs: the status does not fit in its reserved room")
	}
	_, err = f.WriteAt(padSpaces(data, int(fi.Size())), 0)
	return err
}

// padSpaces returns data followed by spaces up to size bytes.
func padSpaces(data []byte, size int) []byte {
	out := make([]byte, max(size, len(data)))
	n := copy(out, data)
	for i := n; i < len(out); i++ {
		out[i] = ' '
	}
	return out
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
