package sandbox

import (
	"os/exec"

	"github.com/shellcap/shellcap"
)

// Confiner returns a shellcap.Confiner that runs every command of a Shell
// in the sandbox cfg describes, with the Shell's workspace as cfg.Workspace:
//
//	sh, err := shellcap.New(shellcap.Options{Workspace: dir, Sandbox: sandbox.Confiner(sandbox.Config{})})
//
// The confiner is also a shellcap.LaunchingConfiner: a Shell keeps one
// Launcher up for its workspace and starts every command from inside it
// (see Launcher for what its commands share). shellcap.New then fails when
// this machine cannot enforce the profile (unless cfg.AllowDegraded), and
// every Result says what was enforced.
func Confiner(cfg Config) shellcap.LaunchingConfiner { return confiner{cfg} }

type confiner struct{ cfg Config }

func (c confiner) Confine(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	return Wrap(cmd, cfg)
}

// ConfineJob confines a background job's command (jobs.JobConfiner) as
// Confine does, and returns the companion process the job's supervisor
// runs beside the job, outside the sandbox: for the workspace-write
// profile it quarantines, when the job has ended, what git or an agent on
// the host would obey that the job created or changed; with a network
// allowlist it serves the job's proxy. Both thereby outlive the host that
// started the job. The companion is nil when the job needs neither.
func (c confiner) ConfineJob(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, *exec.Cmd, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	return confineJob(cmd, cfg)
}

func (c confiner) Launcher(workspace string) (shellcap.Launcher, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	l, err := NewLauncher(cfg)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// enforcement renders the report as what a shellcap.Result carries (the
// one sandbox vocabulary of every result and JSON); nil for a nil report.
func (r *report) enforcement() *shellcap.Enforcement {
	if r == nil {
		return nil
	}
	e := &shellcap.Enforcement{Profile: string(r.Profile), Network: string(r.Network), Allow: r.Allow, Layers: r.Layers, LandlockABI: r.LandlockABI, Protected: r.Protected, Quarantined: r.Quarantined}
	for _, d := range r.Downgrades {
		text := d.Layer + ": " + d.Reason
		if d.Covered != "" {
			text += " (still covered by " + d.Covered + ")"
		}
		e.Downgrades = append(e.Downgrades, text)
	}
	return e
}
