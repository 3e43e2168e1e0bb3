package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// devNodes are the host device files the private /dev keeps, as read-write
// bind mounts of the host's nodes. Nothing else of the host's /dev is in
// the sandbox: no disks, no consoles or virtual terminals (/dev/console,
// /dev/tty0..63, /dev/vcs*, /dev/ttyS*), no /dev/kvm, /dev/userfaultfd,
// /dev/fuse, /dev/kmsg, /dev/mem or /dev/net/tun.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are the symbolic links of the private /dev.
var devLinks = [][2]string{
	{"fd", "/proc/self/fd"},
	{"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"},
	{"stderr", "/proc/self/fd/2"},
}

// devEntries lists every name the private /dev holds, for the report and
// the tests: the nodes, the links, and the pts and shm directories with
// ptmx.
func devEntries() []string {
	out := append([]string{}, devNodes...)
	for _, l := range devLinks {
		out = append(out, l[0])
	}
	return append(out, "ptmx", "pts", "shm")
}

// privateDev replaces /dev with a small read-only tmpfs that holds only
// devNodes, devLinks, a private devpts instance on /dev/pts with /dev/ptmx
// bound to its multiplexer, and an empty /dev/shm directory for the
// private tmpfs setupMounts puts there. The tmpfs is built on devStaging,
// where the host's nodes are still in view to bind, then moved onto /dev
// with them.
func privateDev() error {
	if err := unix.Mount("tmpfs", devStaging, "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return fmt.Errorf("private /dev: mount tmpfs: %w", err)
	}
	for _, name := range devNodes {
		path := devStaging + "/" + name
		if err := touch(path, 0o666); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
		if err := unix.Mount("/dev/"+name, path, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("private /dev: bind /dev/%s: %w", name, err)
		}
	}
	for _, l := range devLinks {
		if err := os.Symlink(l[1], devStaging+"/"+l[0]); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
	}
	for _, d := range []string{"shm", "pts"} {
		if err := os.Mkdir(devStaging+"/"+d, 0o755); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
	}
	if err := touch(devStaging+"/ptmx", 0o666); err != nil {
		return fmt.Errorf("private /dev: %w", err)
	}
	if err := unix.Mount(devStaging, "/dev", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("private /dev: move it onto /dev: %w", err)
	}
	// Terminals the command opens are its own; the host's terminals,
	// which the host's /dev/pts names, are out of reach.
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("private /dev: mount devpts: %w", err)
	}
	if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("private /dev: bind /dev/pts/ptmx over /dev/ptmx: %w", err)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("private /dev: read-only: %w", err)
	}
	return nil
}

// devStaging is where privateDev builds the new /dev: /tmp, which
// setupMounts covers with a private tmpfs of its own afterwards.
const devStaging = "/tmp"

// touch creates an empty file at path, to mount something on.
func touch(path string, mode uint32) error {
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, mode)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return unix.Close(fd)
}
