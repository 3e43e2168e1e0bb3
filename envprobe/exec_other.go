//go:build !unix

package envprobe

import "os"

// killGroup kills the process; there are no process groups here.
func killGroup(p *os.Process) { _ = p.Kill() }

// exitCode is the exit status.
func exitCode(state *os.ProcessState) int { return state.ExitCode() }
