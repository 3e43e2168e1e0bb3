package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of this build; any other is killed.
const auditArch = unix.AUDIT_ARCH_AARCH64

// x32Bit is zero: arm64 has no x32-style system call range.
const x32Bit = 0

// legacyModeCalls is empty: arm64 has only the *at calls.
var legacyModeCalls []modeCall
