package container

// This file holds what a container command takes from the Shell beyond
// the plain settings resolve copies: its environment and its resource
// limits.

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// environment returns the variables one command sees: what the Shell's
// environment holds beyond the host's own variables (the non-interactive
// defaults and the Shell's Options.Env), then Options.Env, then extra
// (Request.Env), all minus the Shell's DeniedEnvPatterns. The host's
// variables (PATH, HOME, PassEnv, ...) describe the host, not the image,
// and stay out.
//
// The seam does not hand the Shell's Options.Env down on its own, so it is
// read off the environment the Shell would give a host command: a
// variable counts as the host's when the host has it with the same value.
// A read-only Shell prepares no command, so its environment cannot be
// read: its commands get Options.Env and extra only, without its
// DeniedEnvPatterns (which the seam does not hand down either).
func (e *Executor) environment(extra map[string]string) (map[string]string, error) {
	given := maps.Clone(e.opts.Env)
	if given == nil {
		given = map[string]string{}
	}
	maps.Copy(given, extra)
	cmd, err := core.Of(e.sh).Cmd(":", "", given)
	if errors.Is(err, shellcap.ErrReadOnlyWorkspace) {
		return given, nil
	}
	if err != nil {
		return nil, err
	}
	vars := make(map[string]string, len(cmd.Env))
	for _, kv := range cmd.Env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := given[k]; !ok {
			if hv, ok := os.LookupEnv(k); ok && hv == v {
				continue // the host's own
			}
			if strings.ContainsAny(v, "\r\n") {
				return nil, optionErr("Env", "the value of the Shell's variable %s holds a CR or LF, which an env file cannot carry; set container Options.Env to override it", k)
			}
		}
		vars[k] = v
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
