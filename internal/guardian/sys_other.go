//go:build !unix

package guardian

import "syscall"

const sigKILL = syscall.SIGKILL

func ownGroup() *syscall.SysProcAttr { return nil }

func ignoreSignals() {}
