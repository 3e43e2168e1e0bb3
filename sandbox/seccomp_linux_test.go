package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter interprets the classic BPF subset seccompProgram emits against
// one struct seccomp_data.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			pc += int(map[bool]uint8{true: in.Jt, false: in.Jf}[acc == in.K])
		case unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K:
			pc += int(map[bool]uint8{true: in.Jt, false: in.Jf}[acc >= in.K])
		case unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			pc += int(map[bool]uint8{true: in.Jt, false: in.Jf}[acc&in.K != 0])
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("unexpected instruction %#x at %d", in.Code, pc)
		}
	}
	t.Fatal("filter fell off its end")
	return 0
}

func TestSeccompProgram(t *testing.T) {
	if auditArch == 0 {
		t.Skip("no filter for this architecture")
	}
	none, full, allow := seccompProgram(NetworkNone), seccompProgram(NetworkFull), seccompProgram(NetworkAllowlist)
	if len(none) > 4096 || len(full) > 4096 || len(allow) > 4096 {
		t.Fatal("filter too long")
	}
	cases := []struct {
		name string
		prog []unix.SockFilter
		arch uint32
		nr   uint32
		args []uint64
		want uint32
	}{
		{"foreign arch killed", none, unix.AUDIT_ARCH_I386, 41, nil, retKill},
		{"foreign arch killed even for allowed nr", full, unix.AUDIT_ARCH_I386, unix.SYS_GETPID, nil, retKill},
		{"getpid allowed", none, auditArch, unix.SYS_GETPID, nil, retAllow},
		{"io_uring denied", none, auditArch, unix.SYS_IO_URING_SETUP, nil, retEPERM},
		{"ptrace denied", full, auditArch, unix.SYS_PTRACE, nil, retEPERM},
		{"clone thread allowed", none, auditArch, unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD}, retAllow},
		{"clone newuser denied", none, auditArch, unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER}, retEPERM},
		{"clone newnet denied", none, auditArch, unix.SYS_CLONE, []uint64{unix.CLONE_NEWNET | uint64(unix.SIGCHLD)}, retEPERM},
		{"clone3 ENOSYS", none, auditArch, unix.SYS_CLONE3, nil, retENOSYS},
		{"ioctl TIOCSTI denied", full, auditArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCSTI}, retEPERM},
		{"ioctl TIOCSTI high bits denied", full, auditArch, unix.SYS_IOCTL, []uint64{0, 1<<32 | unix.TIOCSTI}, retEPERM},
		{"ioctl TIOCGWINSZ allowed", full, auditArch, unix.SYS_IOCTL, []uint64{0, unix.TIOCGWINSZ}, retAllow},
		{"socket unix allowed", none, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, retAllow},
		{"socket inet denied without network", none, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, retEPERM},
		{"socket inet allowed with full network", full, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, retAllow},
		{"socket vsock denied with full network", full, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK}, retEPERM},
		{"socketpair inet denied", none, auditArch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_INET}, retEPERM},
		{"socket unix allowed with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_UNIX}, retAllow},
		{"socket inet allowed with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET}, retAllow},
		{"socket inet6 allowed with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_INET6}, retAllow},
		{"socket vsock denied with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_VSOCK}, retEPERM},
		{"socket netlink denied with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_NETLINK}, retEPERM},
		{"socket packet denied with allowlist", allow, auditArch, unix.SYS_SOCKET, []uint64{unix.AF_PACKET}, retEPERM},
		{"socketpair unix allowed with allowlist", allow, auditArch, unix.SYS_SOCKETPAIR, []uint64{unix.AF_UNIX}, retAllow},
		{"ptrace denied with allowlist", allow, auditArch, unix.SYS_PTRACE, nil, retEPERM},
	}
	if x32Bit != 0 {
		cases = append(cases, struct {
			name string
			prog []unix.SockFilter
			arch uint32
			nr   uint32
			args []uint64
			want uint32
		}{"x32 ENOSYS", none, auditArch, x32Bit | 39, nil, retENOSYS})
	}
	for _, c := range cases {
		if got := runFilter(t, c.prog, c.arch, c.nr, c.args...); got != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
	}
}
