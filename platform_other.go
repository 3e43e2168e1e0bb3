//go:build !unix

package shellcap

import (
	"os"
	"syscall"

	"github.com/shellcap/shellcap/internal/proc"
)

// Linux's numbers, so notes read the same everywhere.
const (
	sigXFSZ = 25
	sigXCPU = 24
	sigKILL = 9
)

func hostLimitAtMost(flag string, v uint64) bool { return false }

func exitStatus(state *os.ProcessState) (int, string) { return proc.ExitStatus(state) }

func sessionAttr() *syscall.SysProcAttr { return nil }

const memoryLimitUnenforced = ""
