package config

import (
	"slices"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/session"
)

// Options returns the library options this configuration describes. It
// checks each value as Parse does; whether the values fit together (a
// default timeout above the maximum, an allow list with a deny list,
// ApproveNone without AcknowledgeUnsafe) is checked by shellcap.New. Unset
// fields stay zero, so the library's defaults apply. Approve and Logger are
// for the program to set.
func (f *File) Options() (shellcap.Options, error) {
	var o shellcap.Options
	if err := f.Validate(); err != nil {
		return o, err
	}
	o = shellcap.Options{
		Workspace:          deref(f.Workspace),
		ReadOnly:           deref(f.ReadOnly),
		ShellPath:          deref(f.Shell),
		DefaultTimeout:     deref(f.DefaultTimeout),
		MaxTimeout:         deref(f.MaxTimeout),
		KillGrace:          deref(f.KillGrace),
		MaxOutputBytes:     deref(f.MaxOutputBytes),
		MaxOutputChars:     deref(f.MaxOutputChars),
		HeadAndTail:        deref(f.HeadAndTail),
		StdoutBudget:       shellcap.Budget{Head: deref(f.StdoutHeadChars), Tail: deref(f.StdoutTailChars)},
		StderrBudget:       shellcap.Budget{Head: deref(f.StderrHeadChars), Tail: deref(f.StderrTailChars)},
		KeepANSI:           deref(f.KeepANSI),
		DisableOutputFiles: deref(f.DisableOutputFiles),
		OutputRetention:    deref(f.OutputRetention),
		MaxFileBytes:       deref(f.MaxFileBytes),
		MemoryLimit:        deref(f.MemoryLimit),
		CPUTime:            deref(f.CPUTime),
		MaxProcesses:       deref(f.MaxProcesses),
		Env:                cloneMap(f.Env),
		PassEnv:            clone(f.PassEnv),
		DeniedEnvPatterns:  expandEnvPatterns(f.DeniedEnvPatterns),
		PersistCwd:         deref(f.PersistCwd),
		Policy:             f.Policy.Rules(),
		ApprovalMode:       deref(f.ApprovalMode),
		AcknowledgeUnsafe:  deref(f.AcknowledgeUnsafe),
		DieWithProcess:     deref(f.DieWithProcess),
	}
	return o, nil
}

// SessionOptions returns the options of the persistent bash sessions.
// Unset fields stay zero, so a session takes the Shell's setting.
func (f *File) SessionOptions() session.Options {
	s := &f.Session
	return session.Options{
		StartInRoot:    deref(s.StartInRoot),
		DefaultTimeout: deref(s.DefaultTimeout),
		MaxTimeout:     deref(s.MaxTimeout),
		InterruptGrace: deref(s.InterruptGrace),
		MaxOutputBytes: deref(s.MaxOutputBytes),
		MaxOutputChars: deref(s.MaxOutputChars),
		KeepANSI:       deref(s.KeepANSI),
		HeadAndTail:    deref(s.HeadAndTail),
		SoftTimeout:    deref(s.SoftTimeout),
	}
}

// JobOptions returns the job Manager's options, without its sandbox,
// which the program derives from the Shell's. Unset fields stay zero, so
// the Manager takes the Shell's setting or the jobs package's default.
func (f *File) JobOptions() jobs.Options {
	j := &f.Jobs
	return jobs.Options{
		MaxJobs:        deref(j.MaxJobs),
		Retention:      deref(j.Retention),
		KillGrace:      deref(j.KillGrace),
		MaxLogBytes:    deref(j.MaxLogBytes),
		MaxOutputChars: deref(j.MaxOutputChars),
		KeepANSI:       deref(j.KeepANSI),
		KeyDir:         deref(j.KeyDir),
		StopOnClose:    deref(j.StopOnClose),
	}
}

// UsesContainer reports whether one-off commands run in the container
// executor (executor: container).
func (f *File) UsesContainer() bool { return deref(f.Executor) == "container" }

// ContainerOptions returns the container executor's options: the
// container keys. The workspace, environment, timeouts and output caps
// are left zero: container.New takes them from the Shell.
func (f *File) ContainerOptions() container.Options {
	c := &f.Container
	mode := container.Stateless
	if deref(c.Mode) == "persistent" {
		mode = container.Persistent
	}
	return container.Options{
		Engine:            deref(c.Runtime),
		EngineArgs:        clone(c.EngineArgs),
		Image:             deref(c.Image),
		RootFS:            deref(c.RootFS),
		Mode:              mode,
		WritableWorkspace: deref(c.WritableWorkspace),
		ShellPath:         deref(c.Shell),
		Memory:            deref(c.Memory),
		Pids:              deref(c.Pids),
		TmpfsSize:         deref(c.TmpfsSize),
		NoFile:            deref(c.NoFile),
		NProc:             deref(c.NProc),
		EngineTimeout:     deref(c.EngineTimeout),
	}
}

// Rules returns the policy rules. Unset lists stay nil, so
// DeniedCommands falls back to the default deny list and AllowPatterns
// to no allow list; set empty lists stay empty.
func (p *Policy) Rules() policy.Rules {
	return policy.Rules{
		AllowedCommands:  clone(p.AllowedCommands),
		DeniedCommands:   clone(p.DeniedCommands),
		DeniedOperators:  clone(p.DeniedOperators),
		AllowInteractive: deref(p.AllowInteractive),
		DenyPatterns:     clone(p.DenyPatterns),
		AllowPatterns:    clone(p.AllowPatterns),
		Approval:         deref(p.Approval),
	}
}

// OfferedTools returns the MCP tools to offer: Tools when set, else all
// of ToolNames.
func (f *File) OfferedTools() []string {
	if f.Tools == nil {
		return slices.Clone(ToolNames)
	}
	return clone(f.Tools)
}

// expandEnvPatterns replaces LLMAPIKeys by shellcap.LLMAPIKeyEnvPatterns,
// dropping repeats.
func expandEnvPatterns(list []string) []string {
	if list == nil {
		return nil
	}
	out := []string{}
	for _, p := range list {
		add := []string{p}
		if p == LLMAPIKeys {
			add = shellcap.LLMAPIKeyEnvPatterns()
		}
		for _, a := range add {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// clone copies a list, keeping nil nil and empty empty.
func clone(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
