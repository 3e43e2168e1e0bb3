// Package proc holds the process-group plumbing shellcap needs on Unix:
// waiting for a child without reaping it, signalling a whole group, and
// the facts about processes that the kernel keeps (start time, group,
// parent, state) that identify a process across PID reuse.
//
// The facts come from /proc on Linux. Elsewhere there is no /proc: darwin
// answers through sysctl kern.proc, and the other systems (FreeBSD and the
// BSDs, and Linux built with the shellcap_portable tag, which is how the
// portable path is tested) through ps(1). The helpers that only need
// kill(2) and the process table are shared by every Unix.
package proc
