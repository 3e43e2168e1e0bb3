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
