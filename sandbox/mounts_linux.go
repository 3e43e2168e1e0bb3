package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// setupMounts runs in the helper's fresh mount namespace: everything
// becomes read-only, /proc is a fresh procfs of the new pid namespace, /tmp
// and /dev/shm (and /run without network) are empty tmpfs, the writable
// roots are re-attached read-write, extra readable roots that were hidden
// by a tmpfs are re-attached read-only, and protected paths inside writable
// roots are read-only bind mounts that cannot be renamed, removed or
// replaced.
func setupMounts(p *policy) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	masked := append([]string{}, privateDirs...)
	if p.MaskRun {
		masked = append(masked, "/run", "/var/run")
	}
	masked = append(masked, p.Homes...)
	type kept struct {
		path string
		fd   int
	}
	var keep []kept
	clone := func(path string, readOnly bool) error {
		if fd := p.idMountFor(path); fd >= 0 {
			keep = append(keep, kept{path, fd}) // idmapped by the host
			return nil
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("clone mount %s: %w", path, err)
		}
		if readOnly {
			if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
				unix.Close(fd)
				return fmt.Errorf("read-only %s: %w", path, err)
			}
		}
		keep = append(keep, kept{path, fd})
		return nil
	}
	for _, w := range p.Writable {
		if isBuiltinRoot(w) {
			continue
		}
		if err := clone(w, false); err != nil {
			return err
		}
	}
	for _, r := range p.Readable {
		if p.idMountFor(r) < 0 && (isBuiltinRoot(r) || isSystemRoot(r) || !underAny(r, masked)) {
			continue
		}
		if err := clone(r, true); err != nil {
			return err
		}
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("read-only root: %w", err)
	}
	if !p.ProcByInit {
		if err := mountProc(); err != nil {
			return err
		}
	}
	if p.Network != NetworkFull {
		// A sysfs of the new network namespace: only lo, not the host's
		// interfaces.
		if err := unix.Mount("sysfs", "/sys", "sysfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /sys: %w", err)
		}
	}
	if err := privateDev(); err != nil {
		return err
	}
	if p.HideRootFiles {
		if err := hideRootFiles(); err != nil {
			return err
		}
	}
	for _, d := range masked {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue // absent, or a symlink such as /var/run -> /run
		}
		mode := "mode=1777"
		if !slices.Contains(privateDirs, d) {
			mode = "mode=755" // /run and home directories: nothing to share
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpfsOptions(mode, p.TmpSize)); err != nil {
			return fmt.Errorf("mount tmpfs on %s: %w", d, err)
		}
	}
	sort.SliceStable(keep, func(i, j int) bool { return len(keep[i].path) < len(keep[j].path) })
	for _, k := range keep {
		if err := attach(k.fd, k.path); err != nil {
			return err
		}
		unix.Close(k.fd)
	}
	return protectFound(p)
}

// mountProc mounts a fresh procfs of the caller's pid namespace on /proc.
func mountProc() error {
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// attach mounts the detached tree fd on path, creating the mount point in a
// fresh tmpfs when it is missing there.
func attach(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("attach %s: %w", path, err)
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("attach %s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			err = os.Mkdir(path, 0o755)
		} else {
			var f *os.File
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				err = f.Close()
			}
		}
		if err != nil {
			return fmt.Errorf("attach %s: %w", path, err)
		}
	}
	if err := unix.MoveMount(fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("attach %s: %w", path, err)
	}
	return nil
}

// isBuiltinRoot reports the device files and private directories the
// helper makes itself.
func isBuiltinRoot(p string) bool {
	for _, b := range privateDirs {
		if p == b {
			return true
		}
	}
	return strings.HasPrefix(p, "/dev/")
}

// isSystemRoot reports one of the system read-only roots, which are never
// re-attached over a hidden directory (that would undo hiding /run).
func isSystemRoot(p string) bool {
	for _, s := range systemReadable {
		if p == s {
			return true
		}
	}
	return false
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
