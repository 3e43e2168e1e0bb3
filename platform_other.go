//go:build !unix

package shellcap

import (
	"os"
	"syscall"
)

// Linux's numbers, so notes read the same everywhere.
const (
	sigXFSZ = 25
	sigXCPU = 24
	sigKILL = 9
)

func hostLimitAtMost(flag string, v uint64) bool { return false }

func exitStatus(state *os.ProcessState) (int, string) {
	if state == nil {
		return -1, ""
	}
	return state.ExitCode(), ""
}

func sessionAttr() *syscall.SysProcAttr { return nil }
