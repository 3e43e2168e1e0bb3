package container

// This file holds what a container command takes from the Shell beyond
// the plain settings resolve copies: its environment and its resource
// limits.

import (
	"fmt"
	"maps"
	"path"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/core"
)

// environment returns the variables one command sees: what the Shell adds
// to its commands beyond the host's own variables (the non-interactive
// defaults and the Shell's Options.Env, core.Settings.Env), then
// Options.Env, then extra (Request.Env), all minus the Shell's
// DeniedEnvPatterns. The host's variables (PATH, HOME, PassEnv, ...)
// describe the host, not the image, and stay out.
func (e *Executor) environment(extra map[string]string) (map[string]string, error) {
	c := core.Of(e.sh)
	if err := c.CheckOpen(); err != nil {
		return nil, err
	}
	st := c.Settings
	vars := st.Env
	maps.Copy(vars, e.opts.Env)
	maps.Copy(vars, extra)
	for k, v := range vars {
		if strings.ContainsAny(v, "\r\n") {
			return nil, optionErr("Env", "the value of %s holds a CR or LF, which an env file cannot carry; set container Options.Env to override it", k)
		}
		for _, p := range st.DeniedEnvPatterns {
			if ok, _ := path.Match(p, k); ok {
				delete(vars, k)
				break
			}
		}
	}
	return vars, nil
}

// shellUlimits renders the Shell's per-process resource limits
// MaxFileBytes and CPUTime as --ulimit flags, soft = hard, in the kernel's
// units: bytes and seconds (rounded up). MaxProcesses goes to
// Options.NProc (resolve); MemoryLimit to the prelude (shellPrelude),
// since engines know no --ulimit for the address space.
func shellUlimits(st core.Settings) []string {
	var args []string
	add := func(name string, v int64) {
		args = append(args, "--ulimit", fmt.Sprintf("%s=%d:%d", name, v, v))
	}
	if st.MaxFileBytes > 0 {
		add("fsize", st.MaxFileBytes)
	}
	if st.CPUTime > 0 {
		add("cpu", int64((st.CPUTime+time.Second-1)/time.Second))
	}
	return args
}

// shellPrelude renders what the container's shell runs before each
// command: the Shell's MemoryLimit as `ulimit -v` (KiB, rounded up), which
// sets the soft and the hard limit, so the command, with every capability
// dropped, cannot raise it. A shell that cannot apply it runs nothing.
func shellPrelude(st core.Settings) string {
	if st.MemoryLimit <= 0 {
		return ""
	}
	kib := (st.MemoryLimit + 1023) / 1024
	return fmt.Sprintf("ulimit -v %d || { echo 'shellcap: unable to apply resource limits' >&2; exit 125; }; ", kib)
}
