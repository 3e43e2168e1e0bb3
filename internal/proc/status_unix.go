//go:build unix

package proc

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ExitStatus turns a wait status into an exit code, 128+N for a process
// ended by signal N as shells report it, and the signal's name. A nil
// state (never waited for) gives -1.
func ExitStatus(state *os.ProcessState) (int, string) {
	if state == nil {
		return -1, ""
	}
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok {
		return state.ExitCode(), ""
	}
	if ws.Signaled() {
		return 128 + int(ws.Signal()), unix.SignalName(ws.Signal())
	}
	return ws.ExitStatus(), ""
}
