package shellcap

import (
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/proc"
)

// spawn is one command to start: the prepared process (Shell.command),
// how to start it (Shell.start) and where its output goes.
type spawn struct {
	// cmd is prepared but not started: path, argv, directory, environment,
	// a new session and any ExtraFiles (descriptors 3 and up). execute
	// sets its standard streams.
	cmd *exec.Cmd
	// start starts cmd the way every executor does (core.Shell.Start):
	// inside the Shell's sandbox when it has one.
	start func(*exec.Cmd) (*os.Process, *Enforcement, error)
	// confined says that a sandbox starts cmd: it never gets a host file
	// (or the host's terminal) as its stdin, only what is read from it.
	confined bool
	stdin    io.Reader
	stdout   *capture.Buffer
	stderr   *capture.Buffer
	onOutput func(Stream, []byte)
	// onStart, when set, is called with the command's PID (its group ID)
	// once it has started and is watched, before execute waits for it.
	onStart  func(pid int)
	timeout  time.Duration
	grace    time.Duration
	maxBytes int64 // <= 0: no cap
	// watch, when set, makes the command's group die with this process;
	// its release is called once the group is gone or handed over.
	watch func(pgid int) (release func(), err error)
}

// outcome is what happened to a spawned command.
type outcome struct {
	state    *os.ProcessState
	pgid     int
	timedOut bool
	canceled bool
	limitHit bool
	// enforcement is what the sandbox enforced, nil without one.
	enforcement *Enforcement
	leftover    []proc.Info
	// release ends the guardian's watch over a group left running.
	release func()
}
