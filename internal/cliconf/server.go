package cliconf

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/sandbox"
)

// OpenServer builds the Shell a server runs a workspace's commands in
// (`shellcap mcp`, `shellcap serve`, the Temporal worker): the
// configuration's Options with approve as their Approver, commands that
// die with the server (DieWithProcess on Linux, unless the configuration
// says otherwise), in the sandbox of ServerShell. It returns what the
// model's instructions say about the sandbox, or the warning (logged) of
// what this machine cannot enforce. The caller closes the Shell.
func OpenServer(eff *config.File, approve shellcap.Approver) (*shellcap.Shell, string, error) {
	opts, err := LibraryOptions(eff)
	if err != nil {
		return nil, "", err
	}
	opts.Approve = approve
	// Foreground commands and the bash tool's shells die with the server,
	// even when it is killed with SIGKILL, unless the configuration says
	// otherwise.
	if eff.DieWithProcess == nil {
		opts.DieWithProcess = runtime.GOOS == "linux"
	}
	return ServerShell(opts, eff)
}

// ErrNoWorkspace refuses a server started in / without --workspace.
var ErrNoWorkspace = errors.New("no workspace: the current directory is /, which is no project; pass --workspace DIR (an absolute path, ~ is expanded), as MCP clients started from / need")

// ServerShell builds the Shell of a server: it refuses to serve / by
// accident, and returns what the model's instructions say about the
// sandbox: what it allows, or a warning (also logged) of what this machine
// cannot enforce.
func ServerShell(opts shellcap.Options, eff *config.File) (*shellcap.Shell, string, error) {
	if opts.Workspace == "" {
		if cwd, err := os.Getwd(); err == nil && filepath.Clean(cwd) == "/" {
			return nil, "", ErrNoWorkspace
		}
	}
	plan := PlanSandbox(eff)
	sh, c, err := OpenShell(opts, plan)
	if err != nil {
		return nil, "", err
	}
	if c.Warning != "" {
		slog.Warn("shellcap: " + c.Warning)
		return sh, fmt.Sprintf("WARNING: %s", c.Warning), nil
	}
	return sh, SandboxInstructions(plan.Cfg), nil
}

// SandboxInstructions tells the model what the sandbox lets commands do,
// so it does not spend calls finding out.
func SandboxInstructions(cfg sandbox.Config) string {
	var fs, netw string
	switch cfg.Profile {
	case sandbox.FullAccess:
		return "Commands run without a sandbox (full-access), with the rights of the user who started the server."
	case sandbox.ReadOnly:
		fs = "they can write only a private /tmp"
	default:
		fs = "they can write only the workspace and a private /tmp"
	}
	switch cfg.Network {
	case sandbox.NetworkFull:
		netw = "the network is open"
	case sandbox.NetworkAllowlist:
		netw = "the network reaches only " + strings.Join(cfg.Allow, ", ") + ", through the proxy in HTTPS_PROXY"
	default:
		netw = "there is no network"
	}
	return fmt.Sprintf("Commands run in a sandbox (%s profile): %s, and %s.", cfg.Profile, fs, netw)
}
