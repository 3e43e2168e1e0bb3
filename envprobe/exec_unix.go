//go:build unix

package envprobe

import (
	"os"
	"syscall"
)

// killGroup kills the process group p leads (the Shell starts every
// command in a new session).
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }
