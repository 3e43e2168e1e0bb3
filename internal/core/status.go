package core

import (
	"os"

	"github.com/shellcap/shellcap/internal/proc"
)

// ExitStatus turns the wait status of a command's shell into the exit code
// every result reports, 128+N for a shell ended by signal N (as shells
// report it), and the signal's name, e.g. "SIGTERM" ("" when no signal
// ended it). A nil state (the process was never waited for) gives -1.
// Every executor reports exit codes through it.
func ExitStatus(state *os.ProcessState) (code int, signal string) {
	return proc.ExitStatus(state)
}
