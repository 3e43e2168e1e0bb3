//go:build !linux

package sandbox

import (
	"os"
	"os/exec"
	"runtime"
)

// Wrap is not supported on this platform: it returns ErrUnsupported and
// leaves cmd unchanged.
func Wrap(cmd *exec.Cmd, cfg Config) (*Report, error) {
	if _, err := cfg.profile(); err != nil {
		return nil, err
	}
	n, err := cfg.network()
	if err != nil {
		return nil, err
	}
	if _, _, err := cfg.allowlist(n); err != nil {
		return nil, err
	}
	return nil, ErrUnsupported
}

// Doctor reports that this platform can enforce nothing.
func Doctor() Capabilities {
	return Capabilities{
		OS: runtime.GOOS, Arch: runtime.GOARCH,
		UserNamespacesError: "not Linux",
		SeccompError:        "not Linux",
	}
}

// Launcher is not supported on this platform.
type Launcher struct{}

// NewLauncher is not supported on this platform: it returns
// ErrUnsupported.
func NewLauncher(cfg Config) (*Launcher, error) { return nil, ErrUnsupported }

// Report returns nil on this platform.
func (l *Launcher) Report() *Report { return nil }

// Start returns ErrUnsupported on this platform.
func (l *Launcher) Start(cmd *exec.Cmd) (*os.Process, error) { return nil, ErrUnsupported }

// Close does nothing on this platform.
func (l *Launcher) Close() error { return nil }

// Guard is not supported on this platform.
type Guard struct{}

// NewGuard is not supported on this platform: it returns ErrUnsupported.
func NewGuard(cfg Config) (*Guard, error) { return nil, ErrUnsupported }

// AfterCommand does nothing on this platform.
func (g *Guard) AfterCommand() ([]string, error) { return nil, nil }
