package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of this build; any other is killed.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks x32 system calls, answered with ENOSYS.
const x32Bit = 0x40000000

// legacyModeCalls are amd64's older calls that set mode bits.
var legacyModeCalls = []modeCall{
	{unix.SYS_OPEN, 1, 2},
	{unix.SYS_CREAT, -1, 1},
	{unix.SYS_CHMOD, -1, 1},
	{unix.SYS_MKNOD, -1, 1},
}
