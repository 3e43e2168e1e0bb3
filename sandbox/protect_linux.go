package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// scanHost finds, on the host, what must be protected in the writable
// roots of pol (the private directories and device files aside), making
// the missing hooks and info directories of the git directories it finds.
func scanHost(pol *policy) ([]protectEntry, error) {
	roots := protectRoots(pol.Writable)
	s := newScanner(roots, hostGitHooksPaths())
	s.create = true
	for _, r := range roots {
		if err := s.scan(r); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	out := make([]protectEntry, len(s.found))
	for i, f := range s.found {
		out[i] = protectEntry{f.path, f.kind}
	}
	return out, nil
}

// helperMounts is what the helper's mount namespace protects, for a
// launcher to add to before each command.
var helperMounts *mountState

// protectFound protects what the host found (policy.Protect), at the end
// of setupMounts.
func protectFound(p *policy) error {
	if p.Profile != WorkspaceWrite {
		// Nothing can be written, but a read-only mount still lets a
		// process open a job's stdin FIFO for writing and read other
		// jobs' logs: shellcap's state stays hidden in every profile.
		if p.Workspace == "" || !p.Mounts {
			return nil
		}
		state := filepath.Join(p.Workspace, stateDirName)
		if fi, err := os.Lstat(state); err != nil || !fi.IsDir() {
			return nil // New creates it before any sandbox; a non-directory holds no state
		}
		return hideAt(state)
	}
	helperMounts = newMountState(protectRoots(p.Writable))
	found := make([]metaPath, len(p.Protect))
	for i, e := range p.Protect {
		found[i] = metaPath{filepath.Clean(e.Path), e.Kind}
	}
	return helperMounts.protect(found)
}

// protectRoots are the writable roots protected paths are searched in.
func protectRoots(writable []string) []string {
	var out []string
	for _, w := range writable {
		if !isBuiltinRoot(w) {
			out = append(out, w)
		}
	}
	return out
}

// mountState remembers what this mount namespace already protects, so
// that a launcher adds only what is new before each command.
type mountState struct {
	roots  []string
	bound  map[string]uint64 // protected path -> inode bound there
	pinned map[string]bool
}

func newMountState(roots []string) *mountState {
	return &mountState{roots: roots, bound: map[string]uint64{}, pinned: map[string]bool{}}
}

// protect makes the found paths read-only bind mounts (the state
// directory an empty read-only tmpfs), after making every directory
// between a writable root and them a mount point of its own, so that
// neither they nor their parents can be renamed, removed or replaced by a
// symlink (EBUSY). A path already protected with the same inode is left
// as it is. No symlink is followed: a path whose components changed into
// one since it was found is skipped, and reported.
func (m *mountState) protect(found []metaPath) error {
	var todo []metaPath
	pins := map[string]bool{}
	for _, f := range found {
		root := m.rootOf(f.path)
		if root == "" {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(f.path, &st) != nil {
			continue // gone since it was found
		}
		if ino, ok := m.bound[f.path]; ok && ino == st.Ino {
			continue
		}
		todo = append(todo, f)
		for d := filepath.Dir(f.path); d != root && strings.HasPrefix(d, root+"/"); d = filepath.Dir(d) {
			if !m.pinned[d] {
				pins[d] = true
			}
		}
	}
	var dirs []string
	for d := range pins {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) < len(dirs[j]) })
	for _, d := range dirs {
		if err := bindAt(d, false); err != nil {
			return fmt.Errorf("pin %s: %w", d, err)
		}
		m.pinned[d] = true
	}
	for _, f := range todo {
		var err error
		if filepath.Base(f.path) == stateDirName && f.kind == metaName {
			// Hidden, not only read-only: a read-only mount still lets a
			// process open a FIFO in it for writing (a job's stdin) and
			// read the logs of other jobs and commands.
			err = hideAt(f.path)
		} else {
			err = bindAt(f.path, true)
		}
		if err != nil {
			return fmt.Errorf("protect %s: %w", f.path, err)
		}
		var st unix.Stat_t
		if unix.Lstat(f.path, &st) == nil {
			m.bound[f.path] = st.Ino
		}
	}
	return nil
}

func (m *mountState) rootOf(p string) string {
	for _, r := range m.roots {
		if strings.HasPrefix(p, r+"/") {
			return r
		}
	}
	return ""
}

// openNoFollow opens path as an O_PATH descriptor, refusing a symlink in
// any component.
func openNoFollow(path string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

// bindAt bind-mounts path onto itself, read-only when asked, resolving it
// once and without symlinks.
func bindAt(path string, readOnly bool) error {
	fd, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if readOnly {
		if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
			return err
		}
	}
	return unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// hideAt mounts an empty read-only tmpfs on the directory path.
func hideAt(path string) error {
	fd, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return bindAt(path, true) // not shellcap's directory: read-only is enough
	}
	fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fsfd)
	for k, v := range map[string]string{"size": "4k", "mode": "0555"} {
		if err := unix.FsconfigSetString(fsfd, k, v); err != nil {
			return err
		}
	}
	if err := unix.FsconfigCreate(fsfd); err != nil {
		return err
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(mfd)
	return unix.MoveMount(mfd, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
}

// protectBeforeLaunch protects, in a launcher, what the host found before
// a command. The launcher's serving thread is confined (no capabilities,
// Landlock, seccomp: it cannot mount), so the mounts are made on another
// thread of the launcher, which none of that applies to: confinement is
// per thread, and the launcher is invisible to its commands.
func protectBeforeLaunch(entries []protectEntry) error {
	if len(entries) == 0 {
		return nil
	}
	if helperMounts == nil {
		return errors.New("sandbox launcher: paths to protect, but no protected paths in this profile")
	}
	found := make([]metaPath, len(entries))
	for i, e := range entries {
		found[i] = metaPath{filepath.Clean(e.Path), e.Kind}
	}
	done := make(chan error, 1)
	go func() { done <- helperMounts.protect(found) }()
	return <-done
}

// aliveInNamespace counts the processes of a launcher's pid namespace
// other than its init, from the namespace's /proc.
func aliveInNamespace() (int, error) {
	des, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, de := range des {
		if name := de.Name(); name != "1" && name[0] >= '0' && name[0] <= '9' {
			n++
		}
	}
	return n, nil
}
