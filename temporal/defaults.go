package temporal

import (
	"runtime"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// defaultShellOptions are a workspace's Shell options when
// WorkerOptions.Shell is nil: shellcap's safe defaults, approvals asked
// through the toolset's hooks, and on Linux DieWithProcess, so that a
// worker killed with SIGKILL takes its foreground commands and bash
// sessions with it (the sweep of foreground records is the second line).
func defaultShellOptions() shellcap.Options {
	return shellcap.Options{Approve: toolset.Approve, DieWithProcess: runtime.GOOS == "linux"}
}
