package jobs

import (
	"os"

	"golang.org/x/sys/unix"
)

// punchHole frees length bytes at off without changing the file's size.
func punchHole(f *os.File, off, length int64) error {
	return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, off, length)
}
