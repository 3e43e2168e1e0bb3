package shellcap

import (
	"io"
	"time"
)

// Request is one command to run.
type Request struct {
	// Command is the shell command line, run as `bash -c Command`. It must
	// be valid UTF-8 without NUL bytes.
	Command string

	// Timeout bounds the command. Zero means Options.DefaultTimeout; a
	// negative value or one above Options.MaxTimeout is refused with a
	// message for the model.
	Timeout time.Duration

	// Dir is the directory to start in, relative to the workspace root (or
	// absolute, inside the workspace). Empty means the workspace root, or
	// the remembered directory when Options.PersistCwd is set.
	Dir string

	// Env adds variables for this command only, after Options.Env and under
	// the same rules (DeniedEnvPatterns still apply). Nil adds nothing.
	Env map[string]string

	// Stdin is the command's standard input. Nil means /dev/null, so
	// commands that read input see end-of-file at once.
	Stdin io.Reader

	// OnOutput, when set, receives output as it arrives, before any
	// truncation: stream is Stdout or Stderr. It is called from the
	// goroutines reading the command's pipes and must return quickly; p is
	// only valid during the call.
	OnOutput func(stream Stream, p []byte)

	// OnStart, when set, is called once, as soon as the command's shell
	// has started and before Run waits for it, with its process ID. The
	// command runs in a process group of its own, which that process
	// leads: the PID is also the group's ID, so a caller that records it
	// (say, in a state file, to clean up after its own process is killed
	// with SIGKILL) can later signal the whole command with kill(-pid).
	// Under Options.Sandbox it is the host-side PID of the sandboxed
	// process Run waits for, which likewise leads the group Run signals.
	// It is not called for a command that did not start (refused by the
	// policy, the approver or the sandbox, or failing to spawn). It is
	// called from Run's goroutine and must return quickly.
	//
	// Shell.Run and jobs.Manager.Run (with the job's shell, which leads the
	// job's group) call it; the persistent bash session and other
	// executors ignore it.
	OnStart func(pid int)

	// StopBackground is for a caller that closes the Shell right after
	// this command (a one-shot run such as `shellcap run`): processes the
	// command leaves in the background are stopped before Run returns
	// (SIGTERM to their process group, then SIGKILL after
	// Options.KillGrace unless the group is gone sooner), and the result
	// says they were stopped instead of telling the model how to stop
	// them; Result.LeftRunning stays empty. False (the default) leaves
	// them running until Close.
	StopBackground bool
}

// Stream names an output stream of a command.
type Stream int

// The output streams.
const (
	Stdout Stream = iota + 1
	Stderr
)

// String returns "stdout" or "stderr".
func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return "stream?"
}
