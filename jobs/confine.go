package jobs

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/sandbox"
	"time"
)

// checkSandbox tries the sandbox once at New, so that a Manager whose jobs
// could not be confined fails at construction with the sandbox's reason
// (for example an error wrapping sandbox.ErrDegraded).
func checkSandbox(cfg sandbox.Config, workspace string) error {
	cmd := exec.Command("/bin/true")
	cmd.Dir = workspace
	cfg.Workspace = workspace
	_, err := sandbox.Wrap(cmd, cfg)
	closeExtraFiles(cmd)
	if err != nil {
		return fmt.Errorf("jobs: option Sandbox: %w", err)
	}
	return nil
}

// confine rewrites the job's prepared command so that it runs inside the
// sandbox cfg describes. The caller closes cmd.ExtraFiles (the sandbox's
// policy pipe) once cmd has started. The sandbox's helper stays PID 1 of
// the job's pid namespace, so the SIGTERM that Stop sends to the job's
// process group reaches the job's shell as it would outside.
func confine(cmd *exec.Cmd, cfg sandbox.Config) (*sandbox.Report, error) {
	return sandbox.Wrap(cmd, cfg)
}

// helperReady waits, up to limit, until the sandbox helper pid has
// started the job's command (it has a child), so that a SIGTERM sent to
// the group reaches the command: before that, the helper as PID 1 of its
// namespace could drop it or die of it without the command's status. It
// returns early when the helper is gone.
func helperReady(pid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for !hasChild(pid) && time.Now().Before(deadline) {
		if info, err := proc.Stat(pid); err != nil || info.State == 'Z' || info.State == 'X' {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// sandboxLine is the line Start adds for the model about a sandboxed job.
func sandboxLine(rep *sandbox.Report) string {
	line := "[sandbox: " + string(rep.Profile) + ", network " + string(rep.Network) + "]"
	if len(rep.Quarantined) > 0 {
		line += "\n[sandbox: moved what git or an agent would obey, which the job created or changed, into .shellcap/quarantine: " + strings.Join(rep.Quarantined, ", ") + "]"
	}
	if rep.QuarantineError != "" {
		line += "\n[sandbox: the workspace check after the job failed: " + rep.QuarantineError + "]"
	}
	return line
}

// closeExtraFiles closes the parent's copies of the files cmd passes on
// (the sandbox's policy pipe).
func closeExtraFiles(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		if f != nil {
			_ = f.Close()
		}
	}
}
