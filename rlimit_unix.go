//go:build unix && !openbsd && !solaris && !illumos

package shellcap

import "golang.org/x/sys/unix"

// ulimitResource maps a ulimit flag to its resource.
var ulimitResource = map[string]int{
	"-f": unix.RLIMIT_FSIZE,
	"-v": unix.RLIMIT_AS,
	"-t": unix.RLIMIT_CPU,
	"-u": unix.RLIMIT_NPROC,
}

// memoryLimitUnenforced says why MemoryLimit (ulimit -v) binds nothing on
// this platform, "" where it binds: darwin's RLIMIT_AS is RLIMIT_RSS, which
// its kernel does not enforce.
var memoryLimitUnenforced = func() string {
	if unix.RLIMIT_AS == unix.RLIMIT_RSS {
		return "MemoryLimit is not enforced: this kernel's RLIMIT_AS is RLIMIT_RSS, which it does not enforce"
	}
	return ""
}()
