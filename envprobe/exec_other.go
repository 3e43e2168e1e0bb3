//go:build !unix

package envprobe

import "os"

// killGroup kills the process; there are no process groups here.
func killGroup(p *os.Process) { _ = p.Kill() }
