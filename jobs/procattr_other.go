//go:build !unix

package jobs

import "syscall"

// procAttr carries nothing where jobs are not supported.
type procAttr struct{}

func attrFrom(*syscall.SysProcAttr) *procAttr { return &procAttr{} }

func (a *procAttr) sys() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// newPIDNamespace: there are no pid namespaces here.
func (a *procAttr) newPIDNamespace() bool { return false }
