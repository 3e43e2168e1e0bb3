package jobs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/proc"
	"github.com/shellcap/shellcap/sandbox"
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

// sandboxInit is the job's PID 1 inside the sandbox's pid namespace. The
// kernel drops signals that PID 1 has no handler for, even from outside
// its namespace (SIGKILL aside), so a shell that is PID 1 would ignore the
// SIGTERM of Stop and of a timeout. This POSIX script catches SIGTERM,
// SIGINT and SIGHUP first (exiting 128+N while it has no child yet),
// starts the job's command line as its child ($0 and $@), then forwards
// those signals to it and exits with its status, so a command that dies of
// SIGTERM reports 143 as it would outside the sandbox. A wait interrupted
// by a forwarded signal is repeated while the child lives. Stdin goes
// through descriptor 3 because a non-interactive shell gives an
// asynchronous command /dev/null otherwise. When the script exits, the
// kernel kills whatever else is left in the namespace.
//
// Until the script has set its first trap, a SIGTERM would still be lost:
// the supervisor waits for that (initReady) before it sends one.
const sandboxInit = `trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
exec 3<&0
"$0" "$@" <&3 3<&- &
c=$!
exec 3<&-
trap 'kill -TERM $c 2>/dev/null' TERM
trap 'kill -INT $c 2>/dev/null' INT
trap 'kill -HUP $c 2>/dev/null' HUP
while :; do
	wait $c 2>/dev/null
	s=$?
	kill -0 $c 2>/dev/null || exit $s
done`

// initShell runs sandboxInit: /bin/sh where it exists (bash loses the
// status of a child reaped while a trap runs, reporting 128+N instead),
// else the job's own shell.
func initShell(jobShell string) string {
	if fi, err := os.Stat("/bin/sh"); err == nil && !fi.IsDir() {
		return "/bin/sh"
	}
	return jobShell
}

// confine rewrites the job's prepared command so that it runs inside the
// sandbox cfg describes, under sandboxInit. The caller closes
// cmd.ExtraFiles (the sandbox's policy pipe) once cmd has started.
//
// It returns the sandbox's report and the init shell's path.
func confine(cmd *exec.Cmd, cfg sandbox.Config) (*sandbox.Report, string, error) {
	path, args := cmd.Path, cmd.Args
	sh := initShell(cmd.Path)
	cmd.Args = append([]string{filepath.Base(sh), "-c", sandboxInit, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sh
	rep, err := sandbox.Wrap(cmd, cfg)
	if err != nil {
		cmd.Path, cmd.Args = path, args
		return nil, "", err
	}
	return rep, sh, nil
}

// initReady waits, up to limit, until process pid runs the init shell
// (Comm is the base name of its path, as the kernel records it) and
// catches SIGTERM, so that a SIGTERM sent to it is not dropped. It returns
// early when the process is gone.
func initReady(pid int, initPath string, limit time.Duration) {
	comm := filepath.Base(initPath)
	comm = comm[:min(len(comm), 15)]
	deadline := time.Now().Add(limit)
	for {
		info, err := proc.Stat(pid)
		if err != nil || info.State == 'Z' || info.State == 'X' {
			return
		}
		if info.Comm == comm && catches(pid, syscall.SIGTERM) {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// enforcement is a sandbox report as a shellcap.Result carries it.
func enforcement(rep *sandbox.Report) *shellcap.Enforcement {
	if rep == nil {
		return nil
	}
	e := &shellcap.Enforcement{Profile: string(rep.Profile), Layers: rep.Layers, LandlockABI: rep.LandlockABI}
	for _, d := range rep.Downgrades {
		text := d.Layer + ": " + d.Reason
		if d.Covered != "" {
			text += " (still covered by " + d.Covered + ")"
		}
		e.Downgrades = append(e.Downgrades, text)
	}
	return e
}

// sandboxLine is the line Start adds for the model about a sandboxed job.
func sandboxLine(rep *sandbox.Report) string {
	return "[sandbox: " + string(rep.Profile) + ", network " + string(rep.Network) + "]"
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
