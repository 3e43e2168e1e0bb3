package safefs

import (
	"errors"
	"fmt"
	"strings"
)

// StateDirName is shellcap's state directory inside a workspace.
const StateDirName = ".shellcap"

// ErrUnsafe reports a path that safefs refuses to use: a symlink, a file
// of the wrong kind, owned by someone else, or with extra hard links.
var ErrUnsafe = errors.New("safefs: unsafe path")

// UnsafeError says which path was refused and why.
type UnsafeError struct {
	Path   string
	Reason string
}

// Error names the path and why it is unsafe.
func (e *UnsafeError) Error() string {
	return "safefs: refusing " + e.Path + ": " + e.Reason
}

// Unwrap returns ErrUnsafe.
func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

func unsafePath(path, format string, args ...any) error {
	return &UnsafeError{Path: path, Reason: fmt.Sprintf(format, args...)}
}

// split checks name and returns its components.
func split(name string) ([]string, error) {
	if name == "" || strings.HasPrefix(name, "/") || strings.ContainsRune(name, 0) {
		return nil, fmt.Errorf("safefs: bad relative name %q", name)
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, fmt.Errorf("safefs: bad relative name %q", name)
		}
	}
	return parts, nil
}
