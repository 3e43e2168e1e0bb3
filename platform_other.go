//go:build !unix

package shellcap

import (
	"io"
	"os"
	"syscall"
	"time"
)

func hostLimitAtMost(flag string, v uint64) bool { return false }

func setsidAttr() *syscall.SysProcAttr { return nil }

func runAttr() *syscall.SysProcAttr { return nil }

// readAvailable reads up to limit bytes that r, a pipe, holds now, waiting
// only briefly.
func readAvailable(r *os.File, limit int) []byte {
	_ = r.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	data, _ := io.ReadAll(io.LimitReader(r, int64(limit)))
	return data
}

const memoryLimitUnenforced = ""
