package sandbox

import (
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// The seccomp filter stays hand-written (see seccomp_linux.go): this test
// decodes the program it generates and checks it against the rules,
// written out again below independently of the generator, for every
// system call number, every socket family, each namespace flag of clone
// and the architecture check.

// wantModeArgs are the calls that set mode bits, written out apart from
// the generator: the index of the mode argument and of open's flags (-1:
// none). amd64 has the legacy calls too (open 2, creat 85, chmod 90,
// mknod 133).
func wantModeArgs() map[uint32][2]int {
	m := map[uint32][2]int{
		unix.SYS_OPENAT:    {2, 3},
		unix.SYS_FCHMOD:    {-1, 1},
		unix.SYS_FCHMODAT:  {-1, 2},
		unix.SYS_FCHMODAT2: {-1, 2},
		unix.SYS_MKNODAT:   {-1, 2},
	}
	if runtime.GOARCH == "amd64" {
		m[2], m[85], m[90], m[133] = [2]int{1, 2}, [2]int{-1, 1}, [2]int{-1, 1}, [2]int{-1, 1}
	}
	return m
}

// seccompWant is the verdict the rules give a call.
func seccompWant(netw Network, nr uint32, args []uint64) uint32 {
	if a, ok := wantModeArgs()[nr]; ok && (x32Bit == 0 || nr < x32Bit) {
		creates := a[0] < 0 || uint32(args[a[0]])&(unix.O_CREAT|0o20000000) != 0 // 0o20000000: __O_TMPFILE
		if creates && uint32(args[a[1]])&(0o4000|0o2000) != 0 {                  // S_ISUID, S_ISGID
			return retEPERM
		}
		return retAllow
	}
	switch {
	case nr == unix.SYS_OPENAT2:
		return retENOSYS
	case x32Bit != 0 && nr >= x32Bit:
		return retENOSYS
	case slices.Contains(deniedSyscalls, nr):
		return retEPERM
	case nr == unix.SYS_CLONE3:
		return retENOSYS
	case nr == unix.SYS_CLONE:
		if uint32(args[0])&nsCloneFlags != 0 {
			return retEPERM
		}
	case nr == unix.SYS_IOCTL:
		if req := uint32(args[1]); req == unix.TIOCSTI || req == unix.TIOCLINUX {
			return retEPERM
		}
	case nr == unix.SYS_SOCKET || nr == unix.SYS_SOCKETPAIR:
		family := uint32(args[0])
		switch netw {
		case NetworkFull:
			if family == unix.AF_VSOCK {
				return retEPERM
			}
		case NetworkAllowlist:
			if family != unix.AF_UNIX && family != unix.AF_INET && family != unix.AF_INET6 {
				return retEPERM
			}
		default:
			if family != unix.AF_UNIX {
				return retEPERM
			}
		}
	}
	return retAllow
}

// checkProgramShape checks what the kernel would reject or what the
// interpreter could miss: the length, that every instruction is one of
// the few the generator emits, that every jump lands inside the program
// and that the program ends in a return.
func checkProgramShape(t *testing.T, prog []unix.SockFilter) {
	t.Helper()
	if len(prog) == 0 || len(prog) > unix.BPF_MAXINSNS {
		t.Fatalf("program of %d instructions", len(prog))
	}
	for pc, in := range prog {
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			if in.K != offNr && in.K != offArch && in.K != offArg0 && in.K != offArg1 && in.K != offArg2 && in.K != offArg3 {
				t.Errorf("%d: load of offset %d", pc, in.K)
			}
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			if pc+1+int(in.Jt) >= len(prog) || pc+1+int(in.Jf) >= len(prog) {
				t.Errorf("%d: jump out of the program", pc)
			}
		case unix.BPF_RET | unix.BPF_K:
			if in.K != retAllow && in.K != retKill && in.K != retEPERM && in.K != retENOSYS {
				t.Errorf("%d: return of %#x", pc, in.K)
			}
		default:
			t.Errorf("%d: instruction %#x", pc, in.Code)
		}
	}
	if last := prog[len(prog)-1]; last.Code != unix.BPF_RET|unix.BPF_K || last.K != retAllow {
		t.Errorf("the program ends in %#x %#x, not a return that allows", last.Code, last.K)
	}
}

func TestSeccompProgramDecoded(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no filter for this architecture")
	}
	foreign := []uint32{unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_X86_64, unix.AUDIT_ARCH_AARCH64, unix.AUDIT_ARCH_ARM,
		unix.AUDIT_ARCH_RISCV64, unix.AUDIT_ARCH_PPC64LE, unix.AUDIT_ARCH_S390X, 0}
	for _, netw := range []Network{NetworkNone, NetworkFull, NetworkAllowlist} {
		prog := seccompProgram(netw)
		checkProgramShape(t, prog)
		// The architecture check comes first: any other architecture is
		// killed, whatever it calls.
		if prog[0] != loadAbs(offArch) || prog[1].K != auditArch || prog[2] != ret(retKill) {
			t.Errorf("%s: the program does not start with the architecture check", netw)
		}
		for _, arch := range foreign {
			if arch == auditArch {
				continue
			}
			for _, nr := range []uint32{0, unix.SYS_GETPID, unix.SYS_SOCKET, unix.SYS_PTRACE} {
				if got := runFilter(t, prog, arch, nr); got != retKill {
					t.Errorf("%s: arch %#x nr %d: %#x, want kill", netw, arch, nr, got)
				}
			}
		}
		check := func(nr uint32, args ...uint64) {
			full := make([]uint64, 6)
			copy(full, args)
			want := seccompWant(netw, nr, full)
			if got := runFilter(t, prog, auditArch, nr, full...); got != want {
				t.Errorf("%s: nr %d args %v: %#x, want %#x", netw, nr, args, got, want)
			}
		}
		for nr := uint32(0); nr < 1024; nr++ {
			check(nr)
			if x32Bit != 0 {
				check(x32Bit | nr)
			}
		}
		for family := uint64(0); family <= unix.AF_MAX; family++ {
			check(unix.SYS_SOCKET, family, unix.SOCK_STREAM)
			check(unix.SYS_SOCKETPAIR, family, unix.SOCK_STREAM)
			check(unix.SYS_SOCKET, 1<<32|family) // high bits are ignored by the kernel
		}
		for bit := 0; bit < 64; bit++ {
			check(unix.SYS_CLONE, 1<<bit|uint64(unix.SIGCHLD))
		}
		for nr, a := range wantModeArgs() {
			for bit := 0; bit < 32; bit++ {
				args := make([]uint64, 4)
				args[a[1]] = 1<<bit | 0o644
				check(nr, args...)
				if a[0] >= 0 {
					for _, fl := range []uint64{0, unix.O_WRONLY, unix.O_CREAT | unix.O_WRONLY, unix.O_TMPFILE | unix.O_RDWR, unix.O_DIRECTORY} {
						args[a[0]] = fl
						check(nr, args...)
					}
				}
			}
		}
		for _, req := range []uint64{unix.TIOCSTI, unix.TIOCLINUX, 1<<32 | unix.TIOCSTI, unix.TIOCGWINSZ, unix.TCGETS, unix.TIOCOUTQ} {
			check(unix.SYS_IOCTL, 0, req)
		}
	}
	// Every denied call has its own block.
	for _, nr := range deniedSyscalls {
		if got := runFilter(t, seccompProgram(NetworkFull), auditArch, nr); got != retEPERM {
			t.Errorf("denied call %d: %#x", nr, got)
		}
	}
	if n := len(seccompProgram(NetworkNone)); n > 512 {
		t.Errorf("the filter grew to %d instructions", n)
	}
}
