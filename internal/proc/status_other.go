//go:build !unix

package proc

import "os"

// ExitStatus returns the exit code; there are no signals here.
func ExitStatus(state *os.ProcessState) (int, string) {
	if state == nil {
		return -1, ""
	}
	return state.ExitCode(), ""
}
