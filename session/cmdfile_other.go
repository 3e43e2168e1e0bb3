//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package session

import (
	"os"
	"path/filepath"
)

// maxCommandFile is the longest command (plus its NUL) a Session takes
// through the command file.
const maxCommandFile = 4 << 20

// newCommandFile returns the command file the shell reads long commands
// from: a private file in dir (there is no memfd, and no sandbox, on this
// platform).
func newCommandFile(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, "command"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}
