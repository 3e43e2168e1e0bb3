//go:build unix

package container

import (
	"fmt"
	"os"
	"syscall"
)

// clientAttr puts the engine client in its own process group, so signals
// meant for the host program's terminal group do not reach it.
func clientAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// exitStatus returns the client's exit code and, if a signal ended it, the
// signal's name.
func exitStatus(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig := ws.Signal()
		return 128 + int(sig), signalName(sig)
	}
	return st.ExitCode(), ""
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return fmt.Sprintf("signal %d", int(sig))
}
