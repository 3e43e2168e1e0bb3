package main

import (
	"errors"
	"fmt"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/container"
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
	return container.New(sh, o) // the Shell's policy, approval, timeouts, output caps, workspace and environment apply
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

// notConfigurable lists the library options no configuration key sets,
// each with the reason. TestEveryLibraryOptionHasAKey checks that every
// field of the options structs the CLI fills is either a key's
// (config.Key.Field) or listed here.
var notConfigurable = map[string]string{
	"shellcap.Options.Approve":         "a function: the CLI asks the MCP client (elicitation) or nobody",
	"shellcap.Options.Logger":          "the CLI's logger (--log-level)",
	"session.Options.Env":              "sessions take the Shell's environment (the env key); a second list would only repeat it",
	"jobs.Options.Confiner":            "follows the Shell's sandbox (the sandbox keys), so jobs are never less confined than commands",
	"container.Options.ExtraArgs":      "raw `run` arguments: for a program that builds container.Options in code",
	"container.Options.Workspace":      "the Shell's workspace (the workspace key)",
	"container.Options.Env":            "the Shell's (the env key)",
	"container.Options.NoWorkspace":    "the CLI always mounts the Shell's workspace",
	"container.Options.DefaultTimeout": "the Shell's (default_timeout)",
	"container.Options.MaxTimeout":     "the Shell's (max_timeout)",
	"container.Options.MaxOutputBytes": "the Shell's (max_output_bytes)",
	"container.Options.MaxOutputChars": "the Shell's (max_output_chars)",
	"container.Options.HeadAndTail":    "the Shell's (head_and_tail)",
	"container.Options.KeepANSI":       "the Shell's (keep_ansi)",
	"mcpserver.Options.Shell":          "built from the configuration",
	"mcpserver.Options.Jobs":           "built from the jobs keys",
	"mcpserver.Options.Executor":       "built from the executor and container keys",
	"mcpserver.Options.Remote":         "the Temporal front door (shellcap serve --temporal, run by shellcap-temporal)",
	"mcpserver.Options.Session":        "built from the session keys",
	"mcpserver.Options.Instructions":   "written by the CLI from the sandbox or container in use",
	"mcpserver.Options.Environment":    "probed by the CLI (server.probe_tools, server.probe_timeout)",
	"mcpserver.Options.Name":           "the program's identity",
	"mcpserver.Options.Version":        "the program's identity (shellcap version)",
	"mcpserver.Options.Logger":         "the CLI's logger (--log-level)",
}
