//go:build unix && !linux

package jobs

import (
	"errors"
	"os"
)

// punchHole is Linux's fallocate(2); elsewhere the log starts again
// instead (see boundedLog.dropOldest).
func punchHole(f *os.File, off, length int64) error {
	return errors.New("jobs: no hole punching on this platform")
}
