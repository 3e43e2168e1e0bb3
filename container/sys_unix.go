//go:build unix

package container

import "syscall"

// clientAttr puts the engine client in its own process group, so signals
// meant for the host program's terminal group do not reach it.
func clientAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
