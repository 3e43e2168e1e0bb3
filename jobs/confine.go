package jobs

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/proc"
)

// A job is confined on the host, before its supervisor exists: the Manager
// prepares the command as the Shell does (core.Of(sh).Cmd), hands it to the
// Confiner (Options.Confiner, else the Shell's Options.Sandbox), which
// rewrites argv, environment, directory, process attributes and inherited
// descriptors and says what it enforces, and sends the rewritten command
// to the supervisor as data (see spec). The supervisor starts exactly what
// it got, so any shellcap.Confiner confines jobs, and this package knows
// nothing of package sandbox.

// confinerOf is the Confiner of a Manager's jobs: the Manager's own, else
// the Shell's; nil when jobs run unconfined.
func confinerOf(sh *shellcap.Shell, own shellcap.Confiner) shellcap.Confiner {
	if own != nil {
		return own
	}
	if c, ok := core.Of(sh).Confiner.(shellcap.Confiner); ok {
		return c
	}
	return nil
}

// checkConfiner tries the Confiner once at New, on /bin/true in the
// workspace, so that a Manager whose jobs could not be confined fails at
// construction with the Confiner's reason (for example an error wrapping
// sandbox.ErrDegraded).
func checkConfiner(c shellcap.Confiner, workspace string) error {
	cmd := exec.Command("/bin/true")
	cmd.Dir = workspace
	_, err := c.Confine(cmd, workspace)
	closeExtraFiles(cmd)
	if err == nil {
		_, err = attrOf(cmd.SysProcAttr)
	}
	if err != nil {
		return fmt.Errorf("jobs: option Confiner: %w", err)
	}
	return nil
}

// confine rewrites the job's prepared command with c and returns what c
// enforces and the companion the job needs (JobConfiner), nil without. On
// error every descriptor the Confiner made is closed; otherwise the caller
// closes them (cmd's and the companion's ExtraFiles) once the supervisor
// has its copies.
func confine(c shellcap.Confiner, cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, *exec.Cmd, error) {
	var enf *shellcap.Enforcement
	var comp *exec.Cmd
	var err error
	if jc, ok := c.(JobConfiner); ok {
		enf, comp, err = jc.ConfineJob(cmd, workspace)
	} else {
		enf, err = c.Confine(cmd, workspace)
	}
	fail := func(err error) (*shellcap.Enforcement, *exec.Cmd, error) {
		closeExtraFiles(cmd)
		if comp != nil {
			closeExtraFiles(comp)
		}
		return nil, nil, fmt.Errorf("cannot confine the job: %w", err)
	}
	switch {
	case err != nil:
		return fail(err)
	case enf == nil:
		return fail(errors.New("the Confiner reported no enforcement"))
	case cmd.Stdin != nil || cmd.Stdout != nil || cmd.Stderr != nil:
		return fail(errors.New("the Confiner set the command's standard streams, which the job's supervisor owns"))
	}
	return enf, comp, nil
}

// helperReady waits, up to limit, until the confined command's first
// process pid (a sandbox's helper, PID 1 of its namespace) has started
// the job's shell (it has a child), so that a SIGTERM sent to the group
// reaches the shell: before that, a helper that is PID 1 of its namespace
// could drop it or die of it without the command's status. It returns
// early when the process is gone.
func helperReady(pid int, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for !hasChild(pid) && time.Now().Before(deadline) {
		if info, err := proc.Stat(pid); err != nil || info.State == 'Z' || info.State == 'X' {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// sandboxLine is the line Start adds for the model about a confined job.
func sandboxLine(e *shellcap.Enforcement, quarantineErr string) string {
	line := "[sandbox: " + e.Profile
	if e.Network != "" {
		line += ", network " + e.Network
	}
	line += "]"
	if len(e.Quarantined) > 0 {
		line += "\n[sandbox: moved what git or an agent would obey, which the job created or changed, into .shellcap/quarantine: " + strings.Join(e.Quarantined, ", ") + "]"
	}
	if quarantineErr != "" {
		line += "\n[sandbox: the workspace check after the job failed: " + quarantineErr + "]"
	}
	return line
}

// closeExtraFiles closes the parent's copies of the files cmd passes on
// (a sandbox's policy pipe).
func closeExtraFiles(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		if f != nil {
			_ = f.Close()
		}
	}
}
