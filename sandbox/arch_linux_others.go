//go:build linux && !amd64 && !arm64

package sandbox

// auditArch is zero: no seccomp filter is built for this architecture, and
// Doctor reports seccomp as unavailable.
const auditArch = 0

const x32Bit = 0

// legacyModeCalls is empty: no filter is built.
var legacyModeCalls []modeCall
