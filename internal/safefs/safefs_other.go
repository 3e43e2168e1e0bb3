//go:build !unix

package safefs

import (
	"errors"
	"io/fs"
	"os"
)

var errUnsupported = errors.New("safefs: not supported on this platform")

// Dir is an open directory; see the package documentation.
type Dir struct{ path string }

// OpenRoot is unsupported on this platform.
func OpenRoot(path string) (*Dir, error) { return nil, errUnsupported }

// OpenState is unsupported on this platform.
func OpenState(workspace string, create bool) (*Dir, error) { return nil, errUnsupported }

// Path returns the directory's path.
func (d *Dir) Path() string { return d.path }

// Close does nothing.
func (d *Dir) Close() error { return nil }

// OpenDir is unsupported on this platform.
func (d *Dir) OpenDir(name string) (*Dir, error) { return nil, errUnsupported }

// MkdirAll is unsupported on this platform.
func (d *Dir) MkdirAll(name string, perm fs.FileMode) (*Dir, error) { return nil, errUnsupported }

// OpenFile is unsupported on this platform.
func (d *Dir) OpenFile(name string, flag int, perm fs.FileMode) (*os.File, error) {
	return nil, errUnsupported
}

// ReadFile is unsupported on this platform.
func (d *Dir) ReadFile(name string, limit int64) ([]byte, error) { return nil, errUnsupported }

// WriteFileAtomic is unsupported on this platform.
func (d *Dir) WriteFileAtomic(name string, data []byte, perm fs.FileMode) error {
	return errUnsupported
}

// Remove is unsupported on this platform.
func (d *Dir) Remove(name string) error { return errUnsupported }

// RemoveAll is unsupported on this platform.
func (d *Dir) RemoveAll(name string) error { return errUnsupported }

// ReadDirNames is unsupported on this platform.
func (d *Dir) ReadDirNames() ([]string, error) { return nil, errUnsupported }

// Lstat is unsupported on this platform.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) { return nil, errUnsupported }

// Mkfifo is unsupported on this platform.
func (d *Dir) Mkfifo(name string, perm fs.FileMode) error { return errUnsupported }

// OpenFIFO is unsupported on this platform.
func (d *Dir) OpenFIFO(name string, flag int) (*os.File, error) { return nil, errUnsupported }

// Join returns the path of name beneath d.
func (d *Dir) Join(name string) string { return d.path + "/" + name }

// WriteFileExclusive is unsupported on this platform.
func (d *Dir) WriteFileExclusive(name string, data []byte, perm fs.FileMode) error {
	return errUnsupported
}
