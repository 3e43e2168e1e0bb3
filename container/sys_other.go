//go:build !unix

package container

import (
	"os"
	"syscall"
)

// clientAttr adds nothing where there are no process groups.
func clientAttr() *syscall.SysProcAttr { return nil }

// exitStatus returns the client's exit code.
func exitStatus(st *os.ProcessState) (int, string) {
	if st == nil {
		return -1, ""
	}
	return st.ExitCode(), ""
}
