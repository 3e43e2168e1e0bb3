package sandbox

import (
	"os/exec"
	"slices"

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

// ConfigOf returns the Config of a Confiner made by Confiner, so that what
// starts commands outside the Shell (background jobs) can confine them
// alike; ok is false for any other shellcap.Confiner. The slices are
// copies.
func ConfigOf(c shellcap.Confiner) (cfg Config, ok bool) {
	cc, ok := c.(confiner)
	if !ok {
		return Config{}, false
	}
	cfg = cc.cfg
	cfg.ExtraWritable = slices.Clone(cfg.ExtraWritable)
	cfg.ExtraReadable = slices.Clone(cfg.ExtraReadable)
	cfg.Rlimits = slices.Clone(cfg.Rlimits)
	cfg.Allow = slices.Clone(cfg.Allow)
	return cfg, true
}

func (c confiner) Confine(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	rep, err := Wrap(cmd, cfg)
	if err != nil {
		return nil, err
	}
	return rep.Enforcement(), nil
}

func (c confiner) Launcher(workspace string) (shellcap.Launcher, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	l, err := NewLauncher(cfg)
	if err != nil {
		return nil, err
	}
	return shellLauncher{l}, nil
}

// shellLauncher adapts a Launcher to shellcap.Launcher.
type shellLauncher struct{ *Launcher }

func (l shellLauncher) Enforcement() *shellcap.Enforcement { return l.Report().Enforcement() }

// Enforcement renders the report as what a shellcap.Result carries; nil
// for a nil report.
func (r *Report) Enforcement() *shellcap.Enforcement {
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
