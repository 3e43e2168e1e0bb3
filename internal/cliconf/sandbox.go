package cliconf

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/sandbox"
)

// DefaultProfile is the default confinement of every command the CLI and
// the servers run: the workspace-write profile without network, where the
// machine can enforce it.
const DefaultProfile = sandbox.WorkspaceWrite

// SandboxPlan is what a configuration asks of the sandbox.
type SandboxPlan struct {
	// Cfg is the sandbox; its Workspace is set by OpenShell.
	Cfg sandbox.Config
	// Explicit reports that the configuration names the profile or a
	// network allowlist: then a layer this machine cannot enforce is
	// refused, not degraded.
	Explicit bool
}

// PlanSandbox reads the sandbox keys of a configuration. An unset (or "")
// profile is the default, which degrades where the machine cannot enforce
// it; a named one is enforced as named or refused.
func PlanSandbox(eff *config.File) SandboxPlan {
	p := SandboxPlan{Cfg: sandbox.Config{Profile: DefaultProfile, Allow: eff.SandboxAllow}}
	if eff.Sandbox != nil && *eff.Sandbox != "" {
		p.Cfg.Profile, p.Explicit = sandbox.Profile(*eff.Sandbox), true
	}
	if eff.SandboxNetwork != nil {
		p.Cfg.Network = sandbox.Network(*eff.SandboxNetwork)
	}
	// A list of hosts is honoured or refused: nothing can stand in for it.
	if p.Cfg.Network == sandbox.NetworkAllowlist || len(p.Cfg.Allow) > 0 {
		p.Explicit = true
	}
	if eff.SandboxReadEverything != nil {
		p.Cfg.ReadEverything = *eff.SandboxReadEverything
	}
	if eff.SandboxProcessLimit != nil {
		p.Cfg.ProcessLimit = *eff.SandboxProcessLimit
	}
	if eff.SandboxTmpSize != nil {
		p.Cfg.TmpSize = *eff.SandboxTmpSize
	}
	if eff.SandboxProxyMaxConns != nil {
		p.Cfg.ProxyMaxConns = *eff.SandboxProxyMaxConns
	}
	if eff.SandboxProxyIdleTimeout != nil {
		p.Cfg.ProxyIdleTimeout = *eff.SandboxProxyIdleTimeout
	}
	return p
}

// SandboxCheck tries cfg on /bin/true without starting it, as the sandbox
// plans every command: nil, or why this machine cannot give it. Tests
// replace it to simulate a machine that cannot enforce the sandbox.
var SandboxCheck = func(cfg sandbox.Config) error {
	cmd := exec.Command("/bin/true")
	cmd.Dir = cfg.Workspace
	_, err := sandbox.Wrap(cmd, cfg)
	for _, f := range cmd.ExtraFiles {
		f.Close()
	}
	return err
}

// Confinement is the outcome of OpenShell.
type Confinement struct {
	// Warning says, when not empty, what the machine could not enforce:
	// the servers log it at start and tell the model.
	Warning string
}

// OpenShell builds the Shell of opts in the sandbox plan asks for. Where
// the default profile cannot be fully enforced it runs degraded (every
// result lists the downgrades), and where this platform has no sandbox at
// all it runs unconfined (every result says so); the warning then says
// which. A profile the configuration names is enforced or refused.
func OpenShell(opts shellcap.Options, plan SandboxPlan) (*shellcap.Shell, Confinement, error) {
	var c Confinement
	cfg := plan.Cfg
	if cfg.Workspace = opts.Workspace; cfg.Workspace == "" {
		cfg.Workspace = "."
	}
	if abs, err := filepath.Abs(cfg.Workspace); err == nil {
		cfg.Workspace = abs
	}
	err := SandboxCheck(cfg)
	switch {
	case err == nil:
	case errors.Is(err, sandbox.ErrDegraded) && !plan.Explicit:
		cfg.AllowDegraded = true
		if err2 := SandboxCheck(cfg); err2 != nil {
			return nil, c, fmt.Errorf("the default sandbox: %w", err2)
		}
		c.Warning = "the sandbox is degraded on this machine, so commands are less confined than the " +
			string(cfg.Profile) + " profile says: " + degradedReason(err) +
			". Every result lists the layers that are not enforced (`shellcap sandbox doctor` says why)."
	case errors.Is(err, sandbox.ErrDegraded):
		// A named profile (or a network allowlist, which nothing can
		// stand in for) is enforced as asked or not at all.
		return nil, c, fmt.Errorf("sandbox %s: %w (see `shellcap sandbox doctor`; without --sandbox the default profile runs degraded, with a warning)", cfg.Profile, err)
	case errors.Is(err, sandbox.ErrUnsupported) && cfg.Profile == sandbox.FullAccess && cfg.Network != sandbox.NetworkAllowlist && len(cfg.Allow) == 0:
		// Nothing to confine: full-access asks for no confinement.
		sh, err := shellcap.New(opts)
		return sh, c, err
	case errors.Is(err, sandbox.ErrUnsupported) && !plan.Explicit:
		c.Warning = "commands run UNCONFINED, with all the rights of the user who started shellcap: " +
			"this machine has no sandbox (" + err.Error() + "). Only the command policy, the scrubbed environment and the limits apply."
		if !opts.PersistCwd { // which needs a launching sandbox
			opts.Sandbox = unconfined{reason: err.Error()}
		}
		sh, err := shellcap.New(opts)
		return sh, c, err
	case errors.Is(err, sandbox.ErrUnsupported) && plan.Explicit:
		return nil, c, fmt.Errorf("sandbox %s: %w", cfg.Profile, err)
	}
	// Any other problem (a bad allowlist entry, a missing workspace) is
	// New's to report.
	opts.Sandbox = sandbox.Confiner(cfg)
	sh, err := shellcap.New(opts)
	return sh, c, err
}

// degradedReason is the part of a sandbox.ErrDegraded error that names the
// missing layers.
func degradedReason(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, sandbox.ErrDegraded.Error()+": "); ok {
		msg = rest
	}
	msg, _, _ = strings.Cut(msg, "; set AllowDegraded")
	return msg
}

// unconfinedJobs is the sandbox of the jobs of an unconfined Shell: on
// Linux, full-access runs them with the user's rights and says so; on
// other platforms there are no jobs.
var unconfinedJobs = sandbox.Config{Profile: sandbox.FullAccess}

// unconfined is the Confiner of a Shell that wanted the default sandbox
// on a platform without one: it confines nothing and says so in every
// result.
type unconfined struct{ reason string }

func (u unconfined) Confine(*exec.Cmd, string) (*shellcap.Enforcement, error) {
	return &shellcap.Enforcement{
		Profile:    "none",
		Network:    "full",
		Layers:     []string{},
		Downgrades: []string{"sandbox: " + u.reason + ": the command runs with the user's rights (NOT enforced)"},
	}, nil
}
