//go:build !linux

package sandbox

import (
	"os"
	"os/exec"
	"runtime"

	"github.com/shellcap/shellcap"
)

// errPlatform is what every entry point returns here: it matches both
// ErrUnsupported and shellcap.ErrUnsupported, so shellcap.New, jobs.New
// and a caller of Wrap all see the same reason.
var errPlatform error = platformError{}

type platformError struct{}

func (platformError) Error() string {
	return ErrUnsupported.Error() + " (namespaces, Landlock and seccomp are Linux's)"
}

func (platformError) Is(target error) bool {
	return target == ErrUnsupported || target == shellcap.ErrUnsupported
}

// Wrap is not supported on this platform: it returns ErrUnsupported and
// leaves cmd unchanged.
func Wrap(cmd *exec.Cmd, cfg Config) (*shellcap.Enforcement, error) {
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
	return nil, errPlatform
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
func NewLauncher(cfg Config) (*Launcher, error) { return nil, errPlatform }

// Enforcement returns nil on this platform.
func (l *Launcher) Enforcement() *shellcap.Enforcement { return nil }

// Start returns ErrUnsupported on this platform.
func (l *Launcher) Start(cmd *exec.Cmd) (*os.Process, error) { return nil, errPlatform }

// Close does nothing on this platform.
func (l *Launcher) Close() error { return nil }

// Guard is not supported on this platform.
type Guard struct{}

// NewGuard is not supported on this platform: it returns ErrUnsupported.
func NewGuard(cfg Config) (*Guard, error) { return nil, ErrUnsupported }

// AfterCommand does nothing on this platform.
func (g *Guard) AfterCommand() ([]string, error) { return nil, nil }

// confineJob is not supported on this platform.
func confineJob(cmd *exec.Cmd, cfg Config) (*shellcap.Enforcement, *exec.Cmd, error) {
	return nil, nil, errPlatform
}
