package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// The identity of a command a root host sandboxes.
//
// A process whose host uid is 0 reads every file root may read, whatever
// its capabilities (the owner's permission bits suffice: /etc/shadow is
// root's, mode 0640), and the kernel exempts it from RLIMIT_NPROC. So when
// the host runs as root, the sandbox's user namespace maps its uid and gid
// 0 to sandboxHostID on the host instead: inside, the command is still
// root (id -u says 0, as tools expect), but to the host's files and to the
// process limit it is an unprivileged user. The roots the configuration
// grants (the workspace, ExtraWritable, ExtraReadable) come back through
// idmapped mounts that show the host's uid and gid 0 as the sandbox's: the
// command may read and write there as before, and what it creates belongs
// to root on the host. The host makes those mounts, since only a process
// privileged over the filesystem may, and hands them to the helper.

// sandboxHostID is the host uid and gid of a root host's sandboxed
// commands. It belongs to no account: nothing on the host is theirs.
const sandboxHostID = 0x7ff00000

// idmapEntry is the re-exec entry point of the short-lived process whose
// user namespace the idmapped mounts use.
const idmapEntry = "sandbox-idmap"

func init() { reexec.Register(idmapEntry, func() int { return 0 }) }

// LayerIdentity is the identity switch's name in Enforcement.Layers.
const LayerIdentity = "unprivileged-identity"

// idMount is a mount the host made for the helper: a detached, idmapped
// clone of a granted root, at descriptor FD of the helper.
type idMount struct {
	Path string `json:"path"`
	FD   int    `json:"fd"`
}

// grantedRoot is a root the configuration grants, read-only or not.
type grantedRoot struct {
	path     string
	readOnly bool
}

// planIdentity decides, in plan, whether the command runs as
// sandboxHostID: with a user namespace, when the host is root.
//
// ReadEverything asks for reading every file the host's user may read, so
// with it a root host's command stays the host's root: the Enforcement says so,
// and that the process limit (which the kernel does not apply to root)
// is then not enforced. That is a choice of the configuration, like
// FullAccess, not a missing layer.
func planIdentity(pol *policy, rep *report, prof Profile, extraW, extraR []string, readEverything bool) {
	if !pol.Mounts || os.Geteuid() != 0 {
		if pol.Mounts {
			rep.Identity = fmt.Sprintf("the host's uid %d (root-only files stay unreadable by file permissions)", os.Geteuid())
		}
		return
	}
	if readEverything {
		rep.Identity = "the host's root, as ReadEverything asks: every file root may read is readable"
		pol.noProcessLimit = "ReadEverything on a root host runs the command as the host's root, whom the kernel exempts from RLIMIT_NPROC"
		return
	}
	pol.SwitchID = true
	pol.granted = append(pol.granted, grantedRoot{pol.Workspace, prof != WorkspaceWrite})
	for _, w := range extraW {
		pol.granted = append(pol.granted, grantedRoot{w, false})
	}
	for _, r := range extraR {
		pol.granted = append(pol.granted, grantedRoot{r, true})
	}
	rep.Layers = append(rep.Layers, LayerIdentity)
	rep.Identity = fmt.Sprintf("root inside, host uid and gid %d outside: files only root may read (/etc/shadow, SSH host keys) are unreadable; "+
		"the workspace and extra roots are idmapped, so what the command writes there belongs to root", sandboxHostID)
}

// prepareIdentity makes the idmapped mounts the helper attaches, as
// files to pass it from descriptor base on, and records their
// descriptors in the policy. With nothing to prepare it returns nil.
func prepareIdentity(pol *policy, base int) ([]*os.File, error) {
	if !pol.SwitchID {
		return nil, nil
	}
	ns, err := idmapUserNS()
	if err != nil {
		return nil, err
	}
	defer unix.Close(ns)
	var files []*os.File
	for _, g := range pol.granted {
		fd, err := idmapClone(g.path, ns, g.readOnly)
		if err != nil {
			closeFiles(files)
			return nil, err
		}
		pol.IDMounts = append(pol.IDMounts, idMount{Path: g.path, FD: base + len(files)})
		files = append(files, os.NewFile(uintptr(fd), "idmapped "+g.path))
	}
	return files, nil
}

// identityRemedy says what a root host can do when the unprivileged
// identity is unavailable.
const identityRemedy = "a root host's commands run as an unprivileged uid only with idmapped mounts of the workspace and extra roots " +
	"(ext4, xfs, btrfs and tmpfs have them; overlayfs does not): put them on such a filesystem, run shellcap as a user other than root, " +
	"or set AllowDegraded to run commands as the host's root (a documented set of root-only files hidden, no process limit)"

// closeFiles closes fs.
func closeFiles(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// idMaps are the uid and gid maps of both the sandbox's and the idmap's
// user namespace: 0 inside is sandboxHostID outside.
func idMaps() ([]syscall.SysProcIDMap, []syscall.SysProcIDMap) {
	m := []syscall.SysProcIDMap{{ContainerID: 0, HostID: sandboxHostID, Size: 1}}
	return m, m
}

// idmapUserNS returns a descriptor of a new user namespace with idMaps,
// made by a process that exits at once: the namespace lives on while the
// descriptor (and later the mounts) refer to it.
func idmapUserNS() (int, error) {
	cmd, err := reexec.Command(idmapEntry)
	if err != nil {
		return -1, err
	}
	cmd.Dir, cmd.Env = "/", []string{}
	uids, gids := idMaps()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER,
		UidMappings: uids, GidMappings: gids,
	}
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("new user namespace: %w", err)
	}
	// Until Wait reaps it, even an exited child names its namespace.
	fd, err := unix.Open("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil {
		return -1, fmt.Errorf("open the new user namespace: %w", err)
	}
	return fd, nil
}

// idmapClone returns a detached clone of the tree at path whose ownership
// is seen through the user namespace ns, read-only when asked.
func idmapClone(path string, ns int, readOnly bool) (int, error) {
	fd, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return -1, fmt.Errorf("clone mount %s: %w", path, err)
	}
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(ns)}
	if readOnly {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, attr); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EINVAL) {
			err = fmt.Errorf("%w: its filesystem (%s) has no idmapped mounts", err, fsName(path))
		}
		return -1, fmt.Errorf("idmap %s: %w", path, err)
	}
	return fd, nil
}

// idMountFor returns the helper's descriptor of the idmapped mount for
// path, or -1.
func (p *policy) idMountFor(path string) int {
	for _, m := range p.IDMounts {
		if m.Path == path {
			return m.FD
		}
	}
	return -1
}

// identityFiles prepares the identity switch after plan. When the
// idmapped mounts cannot be made, it fails, or, with allowDegraded, runs
// the command as the host's root after all and says so in the report.
func identityFiles(pol *policy, rep *report, base int, allowDegraded bool) ([]*os.File, error) {
	files, err := prepareIdentity(pol, base)
	if err == nil {
		return files, nil
	}
	if !allowDegraded {
		return nil, fmt.Errorf("%w: %s (%v); %s", ErrDegraded, LayerIdentity, err, identityRemedy)
	}
	pol.SwitchID, pol.IDMounts, pol.granted = false, nil, nil
	pol.HideRootFiles = true
	rep.Layers = slices.DeleteFunc(rep.Layers, func(l string) bool { return l == LayerIdentity || l == LayerProcessLimit })
	rep.Identity = "the host's root, with only a documented set of root-only files hidden (" + strings.Join(hiddenRootFiles, ", ") + ")"
	rep.Downgrades = append(rep.Downgrades, downgrade{Layer: LayerIdentity, Reason: err.Error() +
		"; files only root may read stay readable, but for the hidden set"})
	if pol.ProcessLimit > 0 {
		pol.ProcessLimit, rep.ProcessLimit = 0, 0
		rep.Downgrades = append(rep.Downgrades, downgrade{Layer: LayerProcessLimit, Reason: "the command runs as the host's root, whom the kernel exempts from RLIMIT_NPROC"})
	}
	return nil, nil
}

// probeIdentity fills in, for Doctor, who sandboxed commands are and what
// the default bounds protect. A root host tries an idmapped clone of the
// filesystem holding its temporary directory.
func probeIdentity(c *Capabilities) {
	if os.Geteuid() == 0 {
		err := func() error {
			ns, err := idmapUserNS()
			if err != nil {
				return err
			}
			defer unix.Close(ns)
			fd, err := idmapClone(os.TempDir(), ns, true)
			if err != nil {
				return err
			}
			return unix.Close(fd)
		}()
		if err != nil {
			c.IdentityError = err.Error()
		} else {
			c.Identity = fmt.Sprintf("root inside, uid and gid %d on the host: files only root may read are unreadable; "+
				"the workspace and extra roots are idmapped, so what commands write there belongs to root", sandboxHostID)
		}
	} else {
		c.Identity = fmt.Sprintf("the host's uid %d: files only root may read stay unreadable by file permissions", os.Geteuid())
	}
	c.Protections = []string{
		"devices: a private read-only /dev with only " + strings.Join(devEntries(), ", ") + " (pts is a devpts of its own)",
		fmt.Sprintf("processes: at most %d processes and threads per sandbox, by RLIMIT_NPROC in its own user namespace (Config.ProcessLimit)", DefaultProcessLimit),
		fmt.Sprintf("private tmpfs: /tmp, /dev/shm, /run and hidden home directories hold at most %s each (Config.TmpSize)", sizeText(DefaultTmpSize)),
		fmt.Sprintf("network allowlist proxy: at most %d connections per sandbox, each closed after %v without traffic (Config.ProxyMaxConns, Config.ProxyIdleTimeout); "+
			"the sandboxes of one process together at most %d (a quarter of its descriptor limit)", DefaultProxyConns, DefaultProxyIdle, proxyBudgetMax()),
	}
	if c.IdentityError != "" {
		c.Protections[1] += "; NOT for a root host without the unprivileged identity, whom the kernel exempts"
	}
}

// fsName names the filesystem path is on, for messages.
func fsName(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return "unknown"
	}
	switch st.Type {
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlayfs"
	case unix.SYSFS_MAGIC:
		return "sysfs"
	case unix.PROC_SUPER_MAGIC:
		return "proc"
	case unix.NFS_SUPER_MAGIC:
		return "nfs"
	case unix.FUSE_SUPER_MAGIC:
		return "fuse"
	}
	return fmt.Sprintf("type %#x", st.Type)
}
