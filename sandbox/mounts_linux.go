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

// protectedNames are files and directories that stay read-only wherever
// they appear (to maxProtectDepth) inside a writable root: things a human or
// agent runs or trusts later, outside the sandbox.
var protectedNames = []string{
	".shellcap", ".mcp.json", ".vscode", ".idea", ".claude", ".cursor", ".codex", ".agents",
	".envrc", ".gitconfig", ".husky", ".githooks",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin",
}

// stateDirName is shellcap's own state directory (job logs and stdin
// FIFOs, kept outputs): inside the sandbox it is an empty read-only
// directory.
const stateDirName = ".shellcap"

// protectedInGitDir are protected inside every .git directory.
var protectedInGitDir = []string{"hooks", "config"}

const (
	maxProtectDepth   = 4
	maxProtectEntries = 50000
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
	if p.Profile != WorkspaceWrite {
		return nil
	}
	for _, w := range p.Writable {
		if isBuiltinRoot(w) {
			continue
		}
		if err := protect(w); err != nil {
			return err
		}
	}
	return nil
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

// protect makes the protected paths under root read-only. Every directory
// between root and a protected path becomes a (read-write) mount point of
// its own, so neither the path nor any parent of it can be renamed,
// removed or replaced by a symlink (EBUSY).
func protect(root string) error {
	paths, err := findProtected(root)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return nil
	}
	pins := map[string]bool{}
	for _, p := range paths {
		for d := filepath.Dir(p); d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
			pins[d] = true
		}
	}
	var dirs []string
	for d := range pins {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) < len(dirs[j]) })
	for _, d := range dirs {
		if err := unix.Mount(d, d, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("pin %s: %w", d, err)
		}
	}
	for _, p := range paths {
		if filepath.Base(p) == stateDirName {
			// Hidden, not only read-only: a read-only mount still lets a
			// process open a FIFO in it for writing (a job's stdin) and
			// read the logs of other jobs and commands.
			if err := unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555"); err != nil {
				return fmt.Errorf("hide %s: %w", p, err)
			}
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
		if err := unix.MountSetattr(unix.AT_FDCWD, p, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
	}
	return nil
}

// findProtected lists the protected paths that exist under root, to
// maxProtectDepth directories deep, without following symlinks. A
// protected path that is a symlink is resolved: its target is protected
// when it lies inside root (the link itself cannot be pinned).
func findProtected(root string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			return
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, err := filepath.EvalSymlinks(p)
			if err != nil || !strings.HasPrefix(t, root+"/") {
				return
			}
			p = t
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	entries := 0
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil // unreadable: nothing we could protect
		}
		for _, de := range des {
			if entries++; entries > maxProtectEntries {
				return fmt.Errorf("protect: more than %d entries under %s", maxProtectEntries, root)
			}
			name, full := de.Name(), filepath.Join(dir, de.Name())
			switch {
			case name == ".git" && de.IsDir():
				// A missing hooks directory would let the command create
				// hooks; an empty one is what git init makes anyway.
				if _, err := os.Lstat(filepath.Join(full, "hooks")); errors.Is(err, fs.ErrNotExist) {
					os.Mkdir(filepath.Join(full, "hooks"), 0o755)
				}
				for _, n := range protectedInGitDir {
					add(filepath.Join(full, n))
				}
				if hp := hooksPath(filepath.Join(full, "config")); hp != "" {
					if !filepath.IsAbs(hp) {
						hp = filepath.Join(dir, hp)
					}
					if hp = filepath.Clean(hp); strings.HasPrefix(hp, root+"/") {
						add(hp)
					}
				}
			case name == ".git":
				add(full) // a gitdir: pointer file
			case isProtectedName(name):
				add(full)
			case de.IsDir() && depth < maxProtectDepth && name != "node_modules":
				if err := walk(full, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(root, 1); err != nil {
		return nil, err
	}
	return out, nil
}

// hooksPath returns the core.hooksPath a git config file sets, or "". It
// reads only the simple one-line form git itself writes.
func hooksPath(config string) string {
	b, err := os.ReadFile(config)
	if err != nil || len(b) > 1<<20 {
		return ""
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			return strings.Trim(strings.TrimSpace(v), "\"")
		}
	}
	return ""
}

func isProtectedName(n string) bool {
	for _, p := range protectedNames {
		if n == p {
			return true
		}
	}
	return false
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
