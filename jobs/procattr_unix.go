//go:build unix && !linux

package jobs

import "syscall"

// procAttr is the part of syscall.SysProcAttr a Confiner may set that a
// job's spec carries.
type procAttr struct {
	Setsid     bool                `json:"setsid,omitempty"`
	Setpgid    bool                `json:"setpgid,omitempty"`
	Credential *syscall.Credential `json:"credential,omitempty"`
}

func attrFrom(sp *syscall.SysProcAttr) *procAttr {
	return &procAttr{Setsid: sp.Setsid, Setpgid: sp.Setpgid, Credential: sp.Credential}
}

func (a *procAttr) sys() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: a.Setsid, Setpgid: a.Setpgid, Credential: a.Credential}
}

// newPIDNamespace: there are no pid namespaces here.
func (a *procAttr) newPIDNamespace() bool { return false }
