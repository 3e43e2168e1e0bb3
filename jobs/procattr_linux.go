package jobs

import "syscall"

// procAttr is the part of syscall.SysProcAttr a Confiner may set that a
// job's spec carries (a sandbox's namespaces, identity mappings, the
// helper's credentials and ambient capabilities).
type procAttr struct {
	Setsid                     bool                   `json:"setsid,omitempty"`
	Setpgid                    bool                   `json:"setpgid,omitempty"`
	Cloneflags                 uintptr                `json:"cloneflags,omitempty"`
	UidMappings                []syscall.SysProcIDMap `json:"uid_mappings,omitempty"`
	GidMappings                []syscall.SysProcIDMap `json:"gid_mappings,omitempty"`
	GidMappingsEnableSetgroups bool                   `json:"gid_mappings_enable_setgroups,omitempty"`
	Credential                 *syscall.Credential    `json:"credential,omitempty"`
	AmbientCaps                []uintptr              `json:"ambient_caps,omitempty"`
}

func attrFrom(sp *syscall.SysProcAttr) *procAttr {
	return &procAttr{
		Setsid: sp.Setsid, Setpgid: sp.Setpgid, Cloneflags: sp.Cloneflags,
		UidMappings: sp.UidMappings, GidMappings: sp.GidMappings,
		GidMappingsEnableSetgroups: sp.GidMappingsEnableSetgroups,
		Credential:                 sp.Credential, AmbientCaps: sp.AmbientCaps,
	}
}

func (a *procAttr) sys() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setsid: a.Setsid, Setpgid: a.Setpgid, Cloneflags: a.Cloneflags,
		UidMappings: a.UidMappings, GidMappings: a.GidMappings,
		GidMappingsEnableSetgroups: a.GidMappingsEnableSetgroups,
		Credential:                 a.Credential, AmbientCaps: a.AmbientCaps,
	}
}

// newPIDNamespace reports a command whose first process is PID 1 of a
// pid namespace of its own (a sandbox's helper).
func (a *procAttr) newPIDNamespace() bool {
	return a != nil && a.Cloneflags&syscall.CLONE_NEWPID != 0
}
