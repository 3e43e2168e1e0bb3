package shellcap

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Confiner starts commands inside an isolation boundary. Package sandbox
// provides one (sandbox.Confiner) built on Linux namespaces, Landlock and
// seccomp; Options.Sandbox takes it.
type Confiner interface {
	// Confine rewrites cmd, prepared but not started, so that it runs
	// confined to workspace, and reports what will be enforced. An error
	// means the command must not run (for example a layer this machine
	// cannot enforce). Files the rewritten cmd passes in ExtraFiles are
	// closed by the caller after the start.
	Confine(cmd *exec.Cmd, workspace string) (*Enforcement, error)
}

// LaunchingConfiner is a Confiner that can also keep its boundary up for
// a workspace and start every command from inside it, which costs a fork
// instead of a fresh sandbox per command. A Shell whose Options.Sandbox
// implements it opens one Launcher at New and closes it at Close.
type LaunchingConfiner interface {
	Confiner
	// Launcher builds the boundary for workspace, or says why it cannot.
	Launcher(workspace string) (Launcher, error)
}

// Launcher starts commands inside a boundary that stays up.
type Launcher interface {
	// Start starts cmd, prepared but not started, inside the boundary as
	// a child of this process: the caller waits for and reaps the
	// returned process. cmd's standard streams are *os.File or nil, and
	// cmd itself is left unstarted.
	Start(cmd *exec.Cmd) (*os.Process, error)
	// Enforcement reports what every command started is confined by.
	Enforcement() *Enforcement
	// Close tears the boundary down, killing what still runs in it.
	Close() error
}

// Enforcement reports what a sandbox enforces for a command. Every Result
// of a confined Shell carries it, so what was enforced is never a guess.
type Enforcement struct {
	// Profile names the confinement, e.g. "workspace-write".
	Profile string `json:"profile"`
	// Network is the network the command has, e.g. "none", "allowlist"
	// or "full"; Allow lists the destinations of an allowlist.
	Network string   `json:"network,omitempty"`
	Allow   []string `json:"allow,omitempty"`
	// Layers are the mechanisms in force, in the order they are applied.
	Layers []string `json:"layers"`
	// LandlockABI is the Landlock ABI in use, 0 when Landlock is not.
	LandlockABI int `json:"landlock_abi,omitempty"`
	// Downgrades says what this machine cannot enforce and why.
	Downgrades []string `json:"downgrades,omitempty"`
	// Protected says what the sandbox protects in the workspace and how
	// (files the host's git or an agent obeys), one line each.
	Protected []string `json:"protected,omitempty"`
	// Quarantined lists files the host's git or an agent would have
	// obeyed (a hook, a git config, commondir, an agent configuration)
	// that the command created or changed and the sandbox moved into the
	// workspace's .shellcap/quarantine, relative to the workspace.
	Quarantined []string `json:"quarantined,omitempty"`
}

// workspaceGuard is implemented by a Launcher that guards what the host
// obeys in the workspace around each command (sandbox.Launcher): it
// protects what exists before a command (Start does this itself) and
// quarantines, after it, what the command created or changed.
type workspaceGuard interface {
	BeforeCommand() error
	AfterCommand() ([]string, error)
}

// beforeStep protects, before a step of a long-lived shell the
// Shell started in its sandbox (a session), what the host obeys in the
// workspace, as every command started by the Shell gets. Without such a
// sandbox it does nothing.
func (s *Shell) beforeStep() error {
	if g, ok := s.launcher.(workspaceGuard); ok {
		if err := g.BeforeCommand(); err != nil {
			return fmt.Errorf("%w: %w", ErrSandbox, err)
		}
	}
	return nil
}

// afterSandboxed checks the workspace after a command or step that ran in
// the Shell's sandbox and records in res what was quarantined (in
// res.Sandbox and a note), or that the check failed. Shell.Run calls it.
func (s *Shell) afterSandboxed(res *Result) {
	moved, notes := s.afterStep()
	if len(moved) > 0 && res.Sandbox != nil {
		e := *res.Sandbox
		e.Quarantined = moved
		res.Sandbox = &e
	}
	res.Notes = append(res.Notes, notes...)
}

// afterStep checks the workspace after a command or a step of a long-lived
// confined shell and returns what was quarantined and the notes that say
// so (or that the check failed); nothing without a guarding sandbox.
func (s *Shell) afterStep() (moved, notes []string) {
	g, ok := s.launcher.(workspaceGuard)
	if !ok {
		return nil, nil
	}
	moved, err := g.AfterCommand()
	if len(moved) > 0 {
		shown := moved
		if len(shown) > 10 {
			shown = shown[:10]
		}
		note := "sandbox: moved " + strconv.Itoa(len(moved)) + " file(s) that git or an agent on the host would obey, which this command created or changed, into .shellcap/quarantine: " + strings.Join(shown, ", ")
		if len(moved) > len(shown) {
			note += ", ..."
		}
		notes = append(notes, note)
	}
	if err != nil {
		notes = append(notes, "sandbox: the workspace check after the command failed: "+err.Error())
		s.log.Warn("shellcap: sandbox workspace check", "err", err)
	}
	return moved, notes
}

// openSandbox tries the confiner once at New, so that a sandbox that
// cannot be had fails the construction with its reason, and opens its
// launcher when it has one.
func openSandbox(c Confiner, workspace string) (Launcher, error) {
	if lc, ok := c.(LaunchingConfiner); ok {
		l, err := lc.Launcher(workspace)
		if err != nil {
			return nil, optionCause("Sandbox", err)
		}
		return l, nil
	}
	return nil, checkConfiner(c, workspace)
}

// checkConfiner tries a confiner without a launcher on /bin/true.
func checkConfiner(c Confiner, workspace string) error {
	cmd := exec.Command("/bin/true")
	cmd.Dir = workspace
	_, err := c.Confine(cmd, workspace)
	closeExtraFiles(cmd)
	if err != nil {
		return optionCause("Sandbox", err)
	}
	return nil
}

func closeExtraFiles(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		if f != nil {
			_ = f.Close()
		}
	}
}
