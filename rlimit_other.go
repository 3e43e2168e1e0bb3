//go:build openbsd || solaris || illumos

package shellcap

import "golang.org/x/sys/unix"

// ulimitResource maps a ulimit flag to its resource. These systems have no
// RLIMIT_AS (and Solaris no RLIMIT_NPROC): those limits are always set by
// the shell, which reports when it cannot.
var ulimitResource = map[string]int{
	"-f": unix.RLIMIT_FSIZE,
	"-t": unix.RLIMIT_CPU,
}

// memoryLimitUnenforced says why MemoryLimit (ulimit -v) binds nothing on
// this platform.
const memoryLimitUnenforced = "MemoryLimit is not enforced: this system has no RLIMIT_AS"
