package jobs

import (
	"fmt"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// Defaults used when the matching [Options] field is zero.
const (
	DefaultMaxJobs     = 32             // Options.MaxJobs
	DefaultRetention   = 24 * time.Hour // Options.Retention
	DefaultMaxLogBytes = 8 << 20        // Options.MaxLogBytes, per log file
	// DefaultWait is how long Wait waits when given a zero timeout.
	DefaultWait = 30 * time.Second
	// MaxWait is the longest timeout Wait accepts.
	MaxWait = 10 * time.Minute
	// MaxShellTimeout is the longest a foreground Shell call waits
	// (pydantic-ai-harness's MAX_FOREGROUND_WAIT).
	MaxShellTimeout = 270 * time.Second
	// DefaultShellTimeout is how long a foreground Shell call waits when
	// ShellRequest.Timeout is zero.
	DefaultShellTimeout = 30 * time.Second
)

// minLogBytes is the smallest MaxLogBytes accepted: the log must keep more
// than any read takes from its end.
const minLogBytes = 64 << 10

// Options configures a [Manager]. The zero value is the safe default; every
// field documents what its zero value means. [New] copies the options.
type Options struct {
	// MaxJobs is how many jobs may run at once in the workspace (as this
	// Manager knows it); Start refuses more with a message for the model.
	// Zero means 32.
	MaxJobs int

	// Retention is how long a finished job's directory (logs and status)
	// is kept before it is removed. Zero means 24 h.
	Retention time.Duration

	// KillGrace is the time between SIGTERM and SIGKILL when a job is
	// stopped: by this Manager's Stop (whichever Manager started it), by
	// its own timeout or a cancelled Run when this Manager started it.
	// Zero means the Shell's Options.KillGrace.
	KillGrace time.Duration

	// MaxLogBytes bounds each log file of a job (stdout, stderr, or the
	// combined log of a Shell job). Past it the oldest bytes are dropped
	// first (the file keeps its length but its beginning becomes a hole)
	// and counted in the status. Zero means 8 MiB; the minimum is 64 KiB.
	// The Shell's MaxFileBytes (max_file_bytes), when smaller, bounds the
	// logs instead (what stays on disk, to whole 4 KiB blocks), as it
	// bounds every file the command writes.
	MaxLogBytes int64

	// MaxOutputChars caps the text a model reads from one result, counted
	// in Unicode code points, keeping the end (where the status lines
	// are). Each stream contributes at most its last 4×MaxOutputChars
	// bytes. Zero means the Shell's Options.MaxOutputChars; negative
	// means no cap (streams then contribute at most MaxLogBytes/2).
	MaxOutputChars int

	// KeepANSI keeps ANSI escape sequences in what the model reads. Zero
	// (false) means the Shell's Options.KeepANSI.
	KeepANSI bool

	// Confiner, when set, confines every job's whole shell instead of the
	// Shell's Options.Sandbox; nil means the Shell's (so jobs never run
	// less confined than the Shell's commands), and no confinement when
	// the Shell has none. Any shellcap.Confiner works: the Manager
	// prepares each job's command as the Shell does, the Confiner rewrites
	// it on the host, and the supervisor starts what it got (the
	// supervisor itself stays outside, writing the logs and the status
	// file, which a confined job cannot touch when .shellcap is a
	// protected path). New fails when the Confiner refuses a trial command
	// (for sandbox.Confiner: errors.Is(err, sandbox.ErrDegraded) for a
	// missing layer, unless AllowDegraded). A [JobConfiner] also gets a
	// companion process beside each job (package sandbox's: the workspace
	// check after the job, the allowlist proxy).
	Confiner shellcap.Confiner

	// KeyDir is the directory, outside the workspace, where the Manager
	// keeps the secret key that signs every job's status file
	// (job-records.key, 0600, in a directory private to the user): a
	// status file without a valid signature is not a job, so nothing a
	// command writes into the workspace can pose as one. Empty means
	// $XDG_STATE_HOME/shellcap, else ~/.local/state/shellcap, else (no
	// usable home) shellcap-<uid> in the host's temporary directory. New
	// fails when the directory lies inside the workspace. Managers of
	// one workspace must share it to see each other's jobs. A job's
	// supervisor also leaves there (job-<id>.status, signed) how the job
	// ended when its job directory is gone (the workspace was deleted);
	// Stop and Retention remove it. Stops take a lock there
	// (job-<id>.lock) and leave a stopped job's final result there
	// (job-<id>.final, signed) until Retention removes both.
	KeyDir string

	// StopOnClose makes [Manager.Close] stop every job this Manager
	// started that still runs (SIGTERM to its process group, KillGrace,
	// SIGKILL; all at once, so Close takes about KillGrace), keeping
	// their logs and status until Retention removes them. False (the
	// zero value) means jobs outlive the Manager and the process, and a
	// later Manager on the workspace finds them. Jobs adopted from disk
	// (started by another Manager) are never stopped by Close.
	StopOnClose bool
}

// fill checks the options and fills in the zero fields: from the Shell's
// settings (st) where the field inherits, else from the package defaults.
func (o *Options) fill(st core.Settings) error {
	if o.MaxJobs < 0 {
		return fmt.Errorf("jobs: option MaxJobs: must not be negative (got %d)", o.MaxJobs)
	}
	if o.MaxJobs == 0 {
		o.MaxJobs = DefaultMaxJobs
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"Retention", &o.Retention, DefaultRetention},
		{"KillGrace", &o.KillGrace, st.KillGrace},
	} {
		if *d.v < 0 {
			return fmt.Errorf("jobs: option %s: must not be negative (got %v)", d.name, *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	switch {
	case o.MaxLogBytes == 0:
		o.MaxLogBytes = DefaultMaxLogBytes
	case o.MaxLogBytes < minLogBytes:
		return fmt.Errorf("jobs: option MaxLogBytes: must be at least %d (got %d)", minLogBytes, o.MaxLogBytes)
	}
	if st.MaxFileBytes > 0 && st.MaxFileBytes < o.MaxLogBytes {
		// The logs are files the job writes: the file-size limit binds
		// them too (the supervisor itself runs without the rlimit).
		o.MaxLogBytes = st.MaxFileBytes
	}
	if o.MaxOutputChars == 0 {
		o.MaxOutputChars = st.MaxOutputChars
	}
	o.KeepANSI = o.KeepANSI || st.KeepANSI
	return nil
}

// readWindow is how many bytes of a log's end one read takes.
func (o *Options) readWindow() int64 {
	w := o.MaxLogBytes / 2
	if o.MaxOutputChars > 0 {
		w = min(w, 4*int64(o.MaxOutputChars))
	}
	return w
}
