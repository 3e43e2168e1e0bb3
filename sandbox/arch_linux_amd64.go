package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of this build; any other is killed.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks x32 system calls, answered with ENOSYS.
const x32Bit = 0x40000000
