package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// testProbe is an entry point of the test binary that a sandboxed shell
// runs to attempt one system call: it exits 0 when the call succeeded (an
// escape), 1 when it failed, and prints the errno.
const testProbe = "sandbox-test-probe"

func init() { reexec.Register(testProbe, probeAttempt) }

func probeAttempt() int {
	if len(os.Args) < 4 {
		fmt.Println("usage: probe ATTEMPT [ARG]")
		return 2
	}
	arg := ""
	if len(os.Args) > 4 {
		arg = os.Args[4]
	}
	err := attempt(os.Args[3], arg)
	if err != nil {
		fmt.Printf("blocked: %v\n", err)
		return 1
	}
	fmt.Println("succeeded")
	return 0
}

func sock(domain, typ, proto int) error {
	fd, err := unix.Socket(domain, typ, proto)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// atoi is strconv.Atoi for probe arguments the test wrote; garbage gives
// -1, which no system call accepts as a pid.
func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func errnoOf(_, _ uintptr, e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

func attempt(name, arg string) error {
	switch name {
	case "inet":
		return sock(unix.AF_INET, unix.SOCK_STREAM, 0)
	case "inet6":
		return sock(unix.AF_INET6, unix.SOCK_STREAM, 0)
	case "udp":
		return sock(unix.AF_INET, unix.SOCK_DGRAM, 0)
	case "mptcp":
		return sock(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
	case "netlink":
		return sock(unix.AF_NETLINK, unix.SOCK_RAW, 0)
	case "packet":
		return sock(unix.AF_PACKET, unix.SOCK_RAW, 0)
	case "vsock":
		return sock(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
	case "unix":
		return sock(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	case "connect-unix":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrUnix{Name: arg})
	case "io_uring":
		var params [120]byte
		r, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params)), 0)
		if e == 0 {
			unix.Close(int(r))
		}
		return errnoOf(r, 0, e)
	case "ptrace":
		return errnoOf(unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_TRACEME, 0, 0, 0, 0, 0))
	case "ptrace-seize":
		// PTRACE_SEIZE on a process outside the sandbox (arg is its pid
		// on the host); a tracer's exit detaches it again.
		return unix.PtraceSeize(atoi(arg))
	case "process_vm_readv-pid":
		// Read a word of a process outside the sandbox; the address is
		// irrelevant, the access check comes first.
		buf := make([]byte, 8)
		local := []unix.Iovec{{Base: &buf[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: 0x400000, Len: 8}}
		_, err := unix.ProcessVMReadv(atoi(arg), local, remote, 0)
		return err
	case "setxattr":
		return unix.Setxattr(arg, "user.shellcap-escape", []byte("x"), 0)
	case "process_vm_readv":
		buf := make([]byte, 8)
		src := []byte("12345678")
		local := []unix.Iovec{{Base: &buf[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: uintptr(unsafe.Pointer(&src[0])), Len: 8}}
		_, err := unix.ProcessVMReadv(os.Getpid(), local, remote, 0)
		return err
	case "bpf":
		var attr [128]byte
		return errnoOf(unix.Syscall(unix.SYS_BPF, 0, uintptr(unsafe.Pointer(&attr)), uintptr(len(attr))))
	case "perf_event_open":
		var attr [128]byte
		attr[4] = 128 // size
		r, _, e := unix.Syscall6(unix.SYS_PERF_EVENT_OPEN, uintptr(unsafe.Pointer(&attr)), 0, ^uintptr(0), ^uintptr(0), 0, 0)
		if e == 0 {
			unix.Close(int(r))
		}
		return errnoOf(r, 0, e)
	case "userfaultfd":
		r, _, e := unix.Syscall(unix.SYS_USERFAULTFD, 0, 0, 0)
		if e == 0 {
			unix.Close(int(r))
		}
		return errnoOf(r, 0, e)
	case "keyctl":
		_, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, unix.KEY_SPEC_SESSION_KEYRING, 0, 0, 0)
		return err
	case "add_key":
		_, err := unix.AddKey("user", "shellcap-probe", []byte("x"), unix.KEY_SPEC_PROCESS_KEYRING)
		return err
	case "unshare-user":
		return unix.Unshare(unix.CLONE_NEWUSER)
	case "setns":
		fd, err := unix.Open("/proc/self/ns/uts", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Setns(fd, 0)
	case "mount":
		return unix.Mount("tmpfs", arg, "tmpfs", 0, "")
	case "open_tree":
		fd, err := unix.OpenTree(unix.AT_FDCWD, "/", unix.OPEN_TREE_CLONE)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "clone-newuser":
		pid, _, e := unix.RawSyscall6(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD), 0, 0, 0, 0, 0)
		if e != 0 {
			return e
		}
		if pid == 0 {
			unix.RawSyscall(unix.SYS_EXIT_GROUP, 0, 0, 0)
		}
		var ws unix.WaitStatus
		unix.Wait4(int(pid), &ws, 0, nil)
		return nil
	case "clone3":
		return errnoOf(unix.Syscall(unix.SYS_CLONE3, 0, 0, 0))
	case "tiocsti":
		c := byte('x')
		return errnoOf(unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCSTI, uintptr(unsafe.Pointer(&c))))
	case "tiocsti-high-bits":
		c := byte('x')
		return errnoOf(unix.Syscall(unix.SYS_IOCTL, 0, 1<<32|unix.TIOCSTI, uintptr(unsafe.Pointer(&c))))
	case "tioclinux":
		c := byte(0)
		return errnoOf(unix.Syscall(unix.SYS_IOCTL, 0, unix.TIOCLINUX, uintptr(unsafe.Pointer(&c))))
	case "write-fd":
		var fd int
		fmt.Sscan(arg, &fd)
		_, err := unix.Write(fd, []byte("escaped through a leaked descriptor\n"))
		return err
	}
	return fmt.Errorf("unknown attempt %q", name)
}
