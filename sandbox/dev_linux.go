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
// private tmpfs setupMounts puts there. The host's nodes are cloned before
// the tmpfs hides them.
func privateDev() error {
	type node struct {
		name string
		fd   int
	}
	var nodes []node
	defer func() {
		for _, n := range nodes {
			unix.Close(n.fd)
		}
	}()
	for _, name := range devNodes {
		path := "/dev/" + name
		fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
		if err != nil {
			return fmt.Errorf("private /dev: clone %s: %w", path, err)
		}
		nodes = append(nodes, node{name, fd})
	}
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return fmt.Errorf("private /dev: mount tmpfs: %w", err)
	}
	for _, n := range nodes {
		path := "/dev/" + n.name
		if err := touch(path, 0o666); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
		if err := unix.MoveMount(n.fd, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("private /dev: attach %s: %w", path, err)
		}
	}
	for _, l := range devLinks {
		if err := os.Symlink(l[1], "/dev/"+l[0]); err != nil {
			return fmt.Errorf("private /dev: %w", err)
		}
	}
	if err := os.Mkdir("/dev/shm", 0o1777); err != nil {
		return fmt.Errorf("private /dev: %w", err)
	}
	if err := os.Mkdir("/dev/pts", 0o755); err != nil {
		return fmt.Errorf("private /dev: %w", err)
	}
	// Terminals the command opens are its own; the host's terminals,
	// which the host's /dev/pts names, are out of reach.
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("private /dev: mount devpts: %w", err)
	}
	if err := touch("/dev/ptmx", 0o666); err != nil {
		return fmt.Errorf("private /dev: %w", err)
	}
	if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("private /dev: bind /dev/pts/ptmx over /dev/ptmx: %w", err)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("private /dev: read-only: %w", err)
	}
	return nil
}

// touch creates an empty file at path, to mount something on.
func touch(path string, mode uint32) error {
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, mode)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return unix.Close(fd)
}
