package sandbox

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// probeEntry is the re-exec entry point that checks namespaced mounts.
const probeEntry = "sandbox-probe"

func init() { reexec.Register(probeEntry, probeMain) }

var (
	probeOnce sync.Once
	probed    Capabilities
	// probeHook, when set (by tests), edits the probed capabilities before
	// Wrap uses them, to simulate a weaker machine.
	probeHook func(*Capabilities)
)

// Doctor reports what this machine can enforce: user namespaces (with a
// trial helper that mounts a fresh /proc and tmpfs), the Landlock ABI and
// seccomp filters. The result is computed once per process.
func Doctor() Capabilities {
	probeOnce.Do(func() { probed = detect() })
	return probed
}

// probe is Doctor with the test hook applied.
func probe() Capabilities {
	c := Doctor()
	if probeHook != nil {
		probeHook(&c)
	}
	return c
}

func detect() Capabilities {
	c := Capabilities{OS: runtime.GOOS, Arch: runtime.GOARCH}
	c.LandlockABI, c.LandlockNewest = landlockABI(), landlockNewestABI
	if auditArch == 0 {
		c.SeccompError = "no seccomp filter for " + runtime.GOARCH
	} else if err := unix.Prctl(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		c.SeccompError = "prctl(PR_GET_SECCOMP): " + err.Error()
	} else {
		c.Seccomp = true
	}
	if err := probeNamespaces(); err != nil {
		c.UserNamespacesError = err.Error()
	} else {
		c.UserNamespaces = true
	}
	if c.UserNamespaces {
		probeIdentity(&c)
	}
	return c
}

// probeNamespaces starts the probe helper in the namespaces a sandbox uses.
func probeNamespaces() error {
	cmd, err := reexec.Command(probeEntry)
	if err != nil {
		return err
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = helperAttr(nil, &policy{Mounts: true, Network: NetworkNone})
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(out.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// probeMain runs in the probe helper: it makes the mounts a sandbox needs.
func probeMain() int {
	runtime.LockOSThread()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Println("make mounts private:", err)
		return 1
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		fmt.Println("mount /proc:", err)
		return 1
	}
	if err := unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
		fmt.Println("mount tmpfs:", err)
		return 1
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		fmt.Println("read-only remount:", err)
		return 1
	}
	return 0
}
