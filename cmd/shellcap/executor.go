package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/container"
	"github.com/shellcap/shellcap/internal/core"
)

// The container executor runs one-off commands only: `shellcap run` and
// the run_command tool. Sessions (repl, the bash tool), background jobs
// (start, the job tools, the shell tool) and promotion run on the host, so
// with executor: container the servers offer run_command alone and repl
// and start refuse to run, rather than quietly running on the host.

// errContainerOnly refuses a host-only subcommand under executor: container.
func errContainerOnly(what string) error {
	return fmt.Errorf("%s runs on the host, but the configuration selects the container executor (executor: container, --executor): only `shellcap run` and the run_command tool run in it; pass --executor host to run %s on the host", what, what)
}

// containerExecutor builds the container executor of a configuration on
// sh: the Shell's policy and approval decide what runs, and its timeouts,
// output caps and workspace apply.
func containerExecutor(sh *shellcap.Shell, eff *config.File) (*container.Executor, error) {
	o := eff.ContainerOptions()
	if o.Image == "" && o.RootFS == "" {
		return nil, errors.New("the container executor needs an image: pass --image IMAGE (container.image, $SHELLCAP_CONTAINER_IMAGE) or --rootfs DIR")
	}
	if eff.Server.ForegroundTimeout != nil && *eff.Server.ForegroundTimeout > 0 {
		return nil, errors.New("server.foreground_timeout (--foreground-timeout) needs the host executor: a promoted command would continue as a host job, outside the container")
	}
	seam := core.Of(sh)
	st := seam.Settings
	// TODO(merge): once container.New(sh, opts) inherits the Shell's
	// settings and policy, only the container keys remain to set here.
	o.Workspace = st.Workspace
	o.DefaultTimeout, o.MaxTimeout = st.DefaultTimeout, st.MaxTimeout
	o.MaxOutputBytes, o.MaxOutputChars = st.MaxOutputBytes, st.MaxOutputChars
	o.HeadAndTail, o.KeepANSI = st.HeadAndTail, st.KeepANSI
	o.Authorize = func(ctx context.Context, command string) *shellcap.Result {
		if err := seam.Admit(ctx, command); err != nil {
			return &shellcap.Result{Command: command, Err: err}
		}
		return nil
	}
	return container.New(o)
}

// executorNote is what the MCP server's instructions say about the
// container executor.
func executorNote(x *container.Executor, eff *config.File) string {
	o := eff.ContainerOptions()
	what := "image " + o.Image
	if o.Image == "" {
		what = "a root filesystem prepared by the host"
	}
	ws := "read-only"
	if o.WritableWorkspace {
		ws = "read-write"
	}
	mode := "each command in a fresh container, so nothing outlives it"
	if o.Mode == container.Persistent {
		mode = "every command in one container, so files in /tmp and installed tools persist"
	}
	return fmt.Sprintf("run_command runs commands in a container (%s, with %s): no network, the workspace mounted %s at %s, %s. No other tool is offered.",
		what, x.Engine(), ws, container.WorkspaceMount, mode)
}
