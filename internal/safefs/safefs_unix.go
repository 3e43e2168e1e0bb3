//go:build unix

package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// Dir is an open directory beneath which names are resolved without
// following symlinks. It is safe for concurrent use; Close it when done.
type Dir struct {
	fd   int
	path string
}

// maxRemoveDepth bounds RemoveAll's recursion.
const maxRemoveDepth = 64

// OpenRoot opens path, a directory the caller trusts (symlinks in path
// itself are followed), as the base for safe names.
func OpenRoot(path string) (*Dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd, path: path}, nil
}

// OpenState opens workspace/.shellcap without following a symlink. With
// create it makes the directory (0700) when missing and makes sure it holds
// a .gitignore that keeps it out of version control, replacing whatever
// else has that name. A .shellcap that is a symlink, not a directory, or
// not owned by the current user is refused with an error wrapping
// ErrUnsafe: the host never uses a state directory it did not make.
func OpenState(workspace string, create bool) (*Dir, error) {
	ws, err := OpenRoot(workspace)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	var st *Dir
	if create {
		st, err = ws.MkdirAll(StateDirName, 0o700)
	} else {
		st, err = ws.OpenDir(StateDirName)
	}
	if err != nil {
		return nil, err
	}
	if create {
		if err := st.ensureGitignore(); err != nil {
			st.Close()
			return nil, err
		}
	}
	return st, nil
}

// ensureGitignore makes sure .gitignore is a regular file of ours (one
// that ignores everything, unless someone has since changed it).
func (d *Dir) ensureGitignore() error {
	const name, body = ".gitignore", "*\n"
	if _, err := d.ReadFile(name, 1<<20); err == nil {
		return nil
	}
	// Missing, or planted (a symlink, a directory, someone else's file):
	// replace it without ever opening what is there.
	if err := d.RemoveAll(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return d.WriteFileAtomic(name, []byte(body), 0o600)
}

// Path returns the directory's path, for messages and for reporting files
// beneath it.
func (d *Dir) Path() string { return d.path }

// Join returns the path of name beneath d, for reporting.
func (d *Dir) Join(name string) string { return filepath.Join(d.path, name) }

// Close closes the directory.
func (d *Dir) Close() error {
	if d == nil || d.fd < 0 {
		return nil
	}
	err := unix.Close(d.fd)
	d.fd = -1
	return err
}

// wrap turns an errno from resolving name into an error naming it:
// symlinks and escapes wrap ErrUnsafe, the rest are *os.PathError.
func (d *Dir) wrap(op, name string, err error) error {
	p := d.Join(name)
	switch {
	case errors.Is(err, unix.ELOOP):
		return unsafePath(p, "a symbolic link is in the way")
	case errors.Is(err, unix.EXDEV):
		return unsafePath(p, "it resolves outside %s", d.path)
	case errors.Is(err, unix.ENOTDIR):
		return unsafePath(p, "a file that is not a directory is in the way")
	}
	return &os.PathError{Op: op, Path: p, Err: err}
}

// openat opens name beneath d with flags, never following a symlink.
func (d *Dir) openat(name string, flags int, mode uint32) (int, error) {
	parts, err := split(name)
	if err != nil {
		return -1, err
	}
	fd, err := openBeneath(d.fd, name, parts, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		// Without O_PATH, a symlink in the middle with O_DIRECTORY and
		// O_NOFOLLOW reads as "not a directory": say what it is.
		if errors.Is(err, unix.ENOTDIR) && d.hasSymlink(parts) {
			err = unix.ELOOP
		}
		return -1, d.wrap("open", name, err)
	}
	return fd, nil
}

// hasSymlink reports whether a component of parts is a symlink.
func (d *Dir) hasSymlink(parts []string) bool {
	cur := d.fd
	defer func() {
		if cur != d.fd {
			unix.Close(cur)
		}
	}()
	for i, p := range parts {
		var st unix.Stat_t
		if unix.Fstatat(cur, p, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return false
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return true
		}
		if i == len(parts)-1 {
			return false
		}
		next, err := unix.Openat(cur, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		if cur != d.fd {
			unix.Close(cur)
		}
		cur = next
	}
	return false
}

// walk opens name one component at a time with O_NOFOLLOW: the portable
// way, and the fallback where openat2 is missing.
func walk(dirfd int, parts []string, flags int, mode uint32) (int, error) {
	cur := dirfd
	for _, p := range parts[:len(parts)-1] {
		next, err := unix.Openat(cur, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if cur != dirfd {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = next
	}
	fd, err := unix.Openat(cur, parts[len(parts)-1], flags, mode)
	if cur != dirfd {
		unix.Close(cur)
	}
	return fd, err
}

// checkOwned refuses a descriptor that is not of kind (S_IFDIR, S_IFREG,
// S_IFIFO), not owned by the effective user, or, for a regular file, with
// more than one link.
func checkOwned(fd int, path string, kind uint32) (*unix.Stat_t, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if got := uint32(st.Mode) & unix.S_IFMT; got != kind {
		return nil, unsafePath(path, "it is a %s, not a %s", kindName(got), kindName(kind))
	}
	if uid := uint32(os.Geteuid()); st.Uid != uid {
		return nil, unsafePath(path, "it is owned by uid %d, not %d", st.Uid, uid)
	}
	if kind == unix.S_IFREG && st.Nlink != 1 {
		return nil, unsafePath(path, "it has %d hard links", st.Nlink)
	}
	return &st, nil
}

func kindName(k uint32) string {
	switch k {
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFREG:
		return "regular file"
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFLNK:
		return "symbolic link"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "device"
	}
	return "file of unknown kind"
}

// OpenDir opens the directory name beneath d.
func (d *Dir) OpenDir(name string) (*Dir, error) {
	fd, err := d.openat(name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	if _, err := checkOwned(fd, d.Join(name), unix.S_IFDIR); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Dir{fd: fd, path: d.Join(name)}, nil
}

// MkdirAll makes name and its missing parents beneath d with perm, and
// opens it. Existing components must be directories of the current user.
func (d *Dir) MkdirAll(name string, perm fs.FileMode) (*Dir, error) {
	parts, err := split(name)
	if err != nil {
		return nil, err
	}
	cur := &Dir{fd: d.fd, path: d.path}
	for _, p := range parts {
		if err := unix.Mkdirat(cur.fd, p, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			if cur.fd != d.fd {
				cur.Close()
			}
			return nil, &os.PathError{Op: "mkdir", Path: cur.Join(p), Err: err}
		}
		next, err := cur.OpenDir(p)
		if cur.fd != d.fd {
			cur.Close()
		}
		if err != nil {
			return nil, err
		}
		cur = next
	}
	return cur, nil
}

// OpenFile opens the regular file name beneath d. The file must be a
// regular file of the current user with one link; O_TRUNC happens only
// after that check, so a planted hard link is never truncated. Opening
// never blocks on a FIFO planted in the file's place.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	flag &^= os.O_TRUNC
	fd, err := d.openat(name, flag|unix.O_NONBLOCK, uint32(perm.Perm()))
	if err != nil {
		if errors.Is(err, unix.ENXIO) {
			err = unsafePath(d.Join(name), "it is a FIFO, not a regular file")
		}
		return nil, err
	}
	if _, err := checkOwned(fd, d.Join(name), unix.S_IFREG); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if trunc {
		if err := unix.Ftruncate(fd, 0); err != nil {
			unix.Close(fd)
			return nil, &os.PathError{Op: "truncate", Path: d.Join(name), Err: err}
		}
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// ReadFile reads the regular file name, refusing one larger than limit
// bytes.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, unsafePath(d.Join(name), "it is larger than %d bytes", limit)
	}
	return data, nil
}

// WriteFileExclusive creates name holding data, complete from the moment
// it appears: written to a temporary file beside it, then renamed to name
// unless name exists (an error wrapping fs.ErrExist).
func (d *Dir) WriteFileExclusive(name string, data []byte, perm fs.FileMode) error {
	return d.writeFile(name, data, perm, false)
}

// WriteFileAtomic replaces name with a new file holding data: written to a
// fresh temporary file beside it, then renamed over it (whatever name was,
// it is replaced, never followed).
func (d *Dir) WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	return d.writeFile(name, data, perm, true)
}

func (d *Dir) writeFile(name string, data []byte, perm fs.FileMode, replace bool) error {
	parent, last, err := d.parent(name)
	if err != nil {
		return err
	}
	defer parent.closeUnlessBase(d)
	var b [8]byte
	_, _ = rand.Read(b[:])
	tmp := "." + last + "-" + hex.EncodeToString(b[:]) + ".tmp"
	f, err := parent.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		rename := func() error { return unix.Renameat(parent.fd, tmp, parent.fd, last) }
		if !replace {
			rename = func() error { return renameNoReplace(parent.fd, tmp, last) }
		}
		if err = rename(); err != nil {
			err = &os.LinkError{Op: "rename", Old: parent.Join(tmp), New: parent.Join(last), Err: err}
		}
	}
	if err != nil {
		_ = unix.Unlinkat(parent.fd, tmp, 0)
	}
	return err
}

// parent opens the directory holding name and returns it with name's last
// component. It returns d itself for a name without "/".
func (d *Dir) parent(name string) (*Dir, string, error) {
	parts, err := split(name)
	if err != nil {
		return nil, "", err
	}
	last := parts[len(parts)-1]
	if len(parts) == 1 {
		return d, last, nil
	}
	p, err := d.OpenDir(filepath.Join(parts[:len(parts)-1]...))
	if err != nil {
		return nil, "", err
	}
	return p, last, nil
}

func (d *Dir) closeUnlessBase(base *Dir) {
	if d != base {
		d.Close()
	}
}

// Remove removes the file or empty directory name (a symlink is removed
// itself, never followed).
func (d *Dir) Remove(name string) error {
	parent, last, err := d.parent(name)
	if err != nil {
		return err
	}
	defer parent.closeUnlessBase(d)
	err = unix.Unlinkat(parent.fd, last, 0)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EPERM) {
		err = unix.Unlinkat(parent.fd, last, unix.AT_REMOVEDIR)
	}
	if err != nil {
		return &os.PathError{Op: "remove", Path: d.Join(name), Err: err}
	}
	return nil
}

// RemoveAll removes name and everything beneath it without following a
// symlink; a missing name is not an error.
func (d *Dir) RemoveAll(name string) error {
	parent, last, err := d.parent(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer parent.closeUnlessBase(d)
	return removeAt(parent.fd, last, parent.Join(last), 0)
}

func removeAt(dirfd int, name, path string, depth int) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	if depth >= maxRemoveDepth {
		return unsafePath(path, "it is more than %d directories deep", maxRemoveDepth)
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	names, err := readNames(fd, path)
	if err == nil {
		for _, n := range names {
			if err = removeAt(fd, n, filepath.Join(path, n), depth+1); err != nil {
				break
			}
		}
	}
	unix.Close(fd)
	if err != nil {
		return err
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return &os.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// readNames lists the directory open as fd (which stays open).
func readNames(fd int, path string) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: path, Err: err}
	}
	unix.CloseOnExec(dup)
	f := os.NewFile(uintptr(dup), path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// ReadDirNames lists the names in d.
func (d *Dir) ReadDirNames() ([]string, error) {
	if _, err := unix.Seek(d.fd, 0, io.SeekStart); err != nil {
		return nil, &os.PathError{Op: "seek", Path: d.path, Err: err}
	}
	return readNames(d.fd, d.path)
}

// Lstat describes name itself (a symlink is described, not followed).
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	parent, last, err := d.parent(name)
	if err != nil {
		return nil, err
	}
	defer parent.closeUnlessBase(d)
	var st unix.Stat_t
	if err := unix.Fstatat(parent.fd, last, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &os.PathError{Op: "lstat", Path: d.Join(name), Err: err}
	}
	return &fileInfo{name: last, st: st}, nil
}

// Mkfifo makes the FIFO name with perm.
func (d *Dir) Mkfifo(name string, perm fs.FileMode) error {
	parent, last, err := d.parent(name)
	if err != nil {
		return err
	}
	defer parent.closeUnlessBase(d)
	if err := mkfifoat(parent.fd, last, uint32(perm.Perm())); err != nil {
		return &os.PathError{Op: "mkfifo", Path: d.Join(name), Err: err}
	}
	return nil
}

// OpenFIFO opens the FIFO name (of the current user) with flag, without
// blocking: O_NONBLOCK is added, so opening for writing fails with ENXIO
// while nobody reads.
func (d *Dir) OpenFIFO(name string, flag int) (*os.File, error) {
	fd, err := d.openat(name, flag|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if _, err := checkOwned(fd, d.Join(name), unix.S_IFIFO); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), d.Join(name)), nil
}

// fileInfo is an fs.FileInfo from a stat buffer.
type fileInfo struct {
	name string
	st   unix.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.st.Size }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.st.Mtim.Unix()) }
func (fi *fileInfo) IsDir() bool        { return fi.Mode().IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.st }
func (fi *fileInfo) Mode() fs.FileMode {
	m := fs.FileMode(uint32(fi.st.Mode) & 0o777)
	switch uint32(fi.st.Mode) & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	return m
}
