//go:build unix && !linux

package safefs

import "golang.org/x/sys/unix"

// openBeneath opens name beneath dirfd one O_NOFOLLOW component at a
// time.
func openBeneath(dirfd int, name string, parts []string, flags int, mode uint32) (int, error) {
	return walk(dirfd, parts, flags, mode)
}

// mkfifoat is missing here: nothing outside Linux makes FIFOs in state.
func mkfifoat(dirfd int, name string, perm uint32) error { return unix.ENOSYS }

// renameNoReplace renames old to new in dirfd, failing with EEXIST when
// new exists (a link, then the old name's removal).
func renameNoReplace(dirfd int, old, new string) error {
	if err := unix.Linkat(dirfd, old, dirfd, new, 0); err != nil {
		return err
	}
	return unix.Unlinkat(dirfd, old, 0)
}
