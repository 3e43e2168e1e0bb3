package safefs

import (
	"errors"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once openat2 turned out to be missing (ENOSYS, or
// refused by a seccomp filter): every later open walks.
var noOpenat2 atomic.Bool

// openBeneath opens name beneath dirfd without following any symlink:
// openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS
// where the kernel has it, else one O_NOFOLLOW component at a time.
func openBeneath(dirfd int, name string, parts []string, flags int, mode uint32) (int, error) {
	if !noOpenat2.Load() {
		how := &unix.OpenHow{
			Flags:   uint64(flags),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		if flags&(unix.O_CREAT|unix.O_TMPFILE) != 0 {
			how.Mode = uint64(mode)
		}
		for range 8 {
			fd, err := unix.Openat2(dirfd, name, how)
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue // a concurrent rename somewhere: try again
			}
			if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) && !permDenied(dirfd, parts) {
				noOpenat2.Store(true)
				break
			}
			return fd, err
		}
		if !noOpenat2.Load() {
			return -1, unix.EAGAIN
		}
	}
	return walk(dirfd, parts, flags, mode)
}

// permDenied tells a real EPERM from the file system from a filter that
// refuses openat2 itself: the walk gets the same EPERM for the former.
func permDenied(dirfd int, parts []string) bool {
	fd, err := walk(dirfd, parts, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(fd)
		return false
	}
	return errors.Is(err, unix.EPERM)
}

func mkfifoat(dirfd int, name string, perm uint32) error {
	return unix.Mknodat(dirfd, name, unix.S_IFIFO|perm, 0)
}

// renameNoReplace renames old to new in dirfd, failing with EEXIST when
// new exists.
func renameNoReplace(dirfd int, old, new string) error {
	return unix.Renameat2(dirfd, old, dirfd, new, unix.RENAME_NOREPLACE)
}
