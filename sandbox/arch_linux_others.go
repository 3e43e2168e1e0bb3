//go:build linux && !amd64 && !arm64

package sandbox

// auditArch is zero: no seccomp filter is built for this architecture, and
// Doctor reports seccomp as unavailable.
const auditArch = 0

const x32Bit = 0
