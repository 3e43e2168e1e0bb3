//go:build unix && !linux

package shellcap

import "errors"

// closeRangeOnExec is not available here: closeInheritedOnExec walks the
// descriptor table instead.
func closeRangeOnExec() error { return errors.New("close_range: not on this platform") }
