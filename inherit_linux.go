package shellcap

import (
	"math"

	"golang.org/x/sys/unix"
)

// closeRangeOnExec is close_range(3, ~0, CLOSE_RANGE_CLOEXEC): one system
// call, Linux 5.11 and later.
func closeRangeOnExec() error {
	return unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC)
}
