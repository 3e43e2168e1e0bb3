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
// shellcap.New then fails when this machine cannot enforce the profile
// (unless cfg.AllowDegraded), and every Result says what was enforced.
func Confiner(cfg Config) shellcap.Confiner { return confiner{cfg} }

type confiner struct{ cfg Config }

func (c confiner) Confine(cmd *exec.Cmd, workspace string) (*shellcap.Enforcement, error) {
	cfg := c.cfg
	cfg.Workspace = workspace
	rep, err := Wrap(cmd, cfg)
	if err != nil {
		return nil, err
	}
	e := &shellcap.Enforcement{Profile: string(rep.Profile), Layers: rep.Layers, LandlockABI: rep.LandlockABI}
	for _, d := range rep.Downgrades {
		text := d.Layer + ": " + d.Reason
		if d.Covered != "" {
			text += " (still covered by " + d.Covered + ")"
		}
		e.Downgrades = append(e.Downgrades, text)
	}
	return e, nil
}
