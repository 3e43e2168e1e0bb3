//go:build unix

package shellcap

import "golang.org/x/sys/unix"

// writable reports whether the host process may create files in dir: it is
// not on a read-only mount and access(2) grants write permission.
func writable(dir string) bool {
	return unix.Access(dir, unix.W_OK) == nil
}
