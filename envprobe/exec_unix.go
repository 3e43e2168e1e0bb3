//go:build unix

package envprobe

import (
	"os"
	"syscall"
)

// killGroup kills the process group p leads (the Shell starts every
// command in a new session).
func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// exitCode is the exit status, 128+N when signal N ended the process.
func exitCode(state *os.ProcessState) int {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}
