//go:build !unix

package container

import "syscall"

// clientAttr adds nothing where there are no process groups.
func clientAttr() *syscall.SysProcAttr { return nil }
