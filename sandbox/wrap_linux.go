package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shellcap/shellcap"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// helperEntry is the re-exec entry point that applies a policy and execs the
// command.
const helperEntry = "sandbox-exec"

func init() { reexec.Register(helperEntry, helperMain) }

// maxPolicy bounds the policy (which lists the protected paths); one
// larger than a pipe holds (pipeMax) travels in a sealed memfd.
const (
	maxPolicy = 64 << 20
	pipeMax   = 1 << 20
)

// Wrap rewrites cmd, prepared but not started, so that it runs inside the
// sandbox cfg describes: cmd then starts this binary as a helper, which
// applies the layers in the returned Enforcement and execs the original
// Path/Args/Env/Dir. Stdin, stdout, stderr, the context and the caller's
// SysProcAttr session settings are kept. cmd must not have ExtraFiles: the
// helper closes every descriptor but 0, 1 and 2.
//
// Wrap fails, leaving cmd unchanged, when a layer the profile needs is
// unavailable and cfg.AllowDegraded is false; the error wraps ErrDegraded
// and names the layer. It also fails when a standard stream that is an
// *os.File could reach a host file beyond the profile's grants (a
// writable file outside the writable roots, a directory, a device other
// than the null-like ones; see fdcheck_linux.go). Wrap puts the policy in a pipe that cmd inherits as
// ExtraFiles[0]; the parent's copy is closed when the *os.File is garbage
// collected, or by the caller after Start.
//
// With NetworkAllowlist, cmd also inherits one end of a control socket as
// ExtraFiles[1], and Wrap starts a goroutine that waits on the other end
// for the helper's proxy listener, then serves the proxy until the
// sandbox's PID 1 exits. The goroutine ends without serving when the
// helper closes its end without sending, so the caller must close the
// ExtraFiles after Start (or after deciding not to start cmd), as for the
// policy pipe.
func Wrap(cmd *exec.Cmd, cfg Config) (*shellcap.Enforcement, error) {
	rep, err := wrapCmd(cmd, cfg)
	if err != nil {
		return nil, err
	}
	return rep.enforcement(), nil
}

// wrapCmd is Wrap, returning the sandbox's full report (the namespaces,
// roots, identity and bounds it arranged), which this package's own
// diagnostics and tests read.
func wrapCmd(cmd *exec.Cmd, cfg Config) (*report, error) {
	rep, _, err := wrapWith(cmd, cfg, false)
	return rep, err
}

// wrapWith is wrapCmd. With a network allowlist, the proxy is served by
// this process unless detached; detached, the host's end of the control
// socket is returned instead, for the process that will serve the proxy
// (a job's companion, see confineJob).
func wrapWith(cmd *exec.Cmd, cfg Config, detached bool) (*report, *os.File, error) {
	var hostCtl *os.File
	rep, err := wrapInto(cmd, cfg, detached, &hostCtl)
	if err != nil {
		if hostCtl != nil {
			hostCtl.Close()
		}
		return nil, nil, err
	}
	return rep, hostCtl, nil
}

// wrapInto does wrapWith's work, leaving the host's end of a detached
// proxy's control socket in *hostCtl.
func wrapInto(cmd *exec.Cmd, cfg Config, detached bool, hostCtl **os.File) (*report, error) {
	if cmd == nil || cmd.Process != nil {
		return nil, errors.New("sandbox: Wrap needs a prepared, unstarted command")
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if len(cmd.ExtraFiles) > 0 {
		return nil, errors.New("sandbox: commands with ExtraFiles cannot be sandboxed")
	}
	if sp := cmd.SysProcAttr; sp != nil && (sp.Cloneflags != 0 || sp.Credential != nil || sp.Chroot != "" || len(sp.AmbientCaps) > 0) {
		return nil, errors.New("sandbox: the command's SysProcAttr already changes namespaces, credentials or root")
	}
	pol, rep, err := plan(cmd, cfg, probe())
	if err != nil {
		return nil, err
	}
	grants := grantsOf(pol)
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if err := grants.checkFile(i, s); err != nil {
			return nil, err
		}
	}
	base := 4 // after the policy
	if pol.Network == NetworkAllowlist {
		base++ // and the proxy's control socket
	}
	idFiles, err := identityFiles(pol, rep, base, cfg.AllowDegraded)
	if err != nil {
		return nil, err
	}
	if pol.Mounts && pol.Profile == WorkspaceWrite {
		if pol.Protect, err = scanHost(pol); err != nil {
			closeFiles(idFiles)
			return nil, err
		}
	}
	r, err := encodePolicy(pol)
	if err != nil {
		closeFiles(idFiles)
		return nil, err
	}
	self, err := reexec.Self()
	if err != nil {
		r.Close()
		closeFiles(idFiles)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	files := []*os.File{r}
	if pol.Network == NetworkAllowlist {
		var ctl *os.File
		if detached {
			var host *os.File
			host, ctl, err = proxySocket()
			*hostCtl = host
		} else {
			ctl, err = startProxy(pol.allow, pol.proxy)
		}
		if err != nil {
			r.Close()
			closeFiles(idFiles)
			return nil, err
		}
		files = append(files, ctl)
	}
	files = append(files, idFiles...)
	cmd.Path = self
	cmd.Args = []string{"shellcap-sandbox", reexec.Marker, helperEntry}
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.ExtraFiles = files
	cmd.SysProcAttr = helperAttr(cmd.SysProcAttr, pol)
	return rep, nil
}

// encodePolicy returns the read end of a pipe holding pol.
func encodePolicy(pol *policy) (*os.File, error) {
	data, err := json.Marshal(pol)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode policy: %w", err)
	}
	if len(data) > maxPolicy {
		return nil, fmt.Errorf("sandbox: policy is %d bytes, more than %d", len(data), maxPolicy)
	}
	return policyPipe(data)
}

// policyPipe returns the read end of a pipe that already holds data and
// whose write end is closed.
func policyPipe(data []byte) (*os.File, error) {
	if len(data) > pipeMax {
		return policyMemfd(data)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: policy pipe: %w", err)
	}
	defer w.Close()
	if len(data) > 60<<10 {
		if _, err := unix.FcntlInt(w.Fd(), unix.F_SETPIPE_SZ, pipeMax); err != nil {
			r.Close()
			return nil, fmt.Errorf("sandbox: grow policy pipe: %w", err)
		}
	}
	if _, err := w.Write(data); err != nil {
		r.Close()
		return nil, fmt.Errorf("sandbox: write policy: %w", err)
	}
	return r, nil
}

// policyMemfd returns a sealed memfd holding data, read from its start.
func policyMemfd(data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate("shellcap-policy", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("sandbox: policy memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "shellcap-policy")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: write policy: %w", err)
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: seal policy: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("sandbox: policy memfd: %w", err)
	}
	return f, nil
}

// helperAttr keeps the caller's session settings, always starts a new
// session, and adds the namespaces the policy asks for.
func helperAttr(orig *syscall.SysProcAttr, pol *policy) *syscall.SysProcAttr {
	sp := &syscall.SysProcAttr{Setsid: true}
	if orig != nil {
		c := *orig
		sp = &c
		if !sp.Setpgid && !sp.Setctty {
			sp.Setsid = true
		}
	}
	if !pol.Mounts {
		return sp
	}
	sp.Cloneflags = nsFlags(pol.Network)
	uid, gid := os.Getuid(), os.Getgid()
	sp.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	sp.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	sp.GidMappingsEnableSetgroups = false
	if pol.SwitchID {
		// uid and gid 0 inside are sandboxHostID outside, with no
		// supplementary group (root's would still open group-readable
		// files).
		sp.UidMappings, sp.GidMappings = idMaps()
		sp.GidMappingsEnableSetgroups = true
		sp.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	}
	// Capabilities in the new user namespace vanish at the helper's execve
	// unless the helper's uid is 0 there; ambient ones survive it.
	sp.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	if pol.Network == NetworkAllowlist {
		// To raise lo in the new network namespace.
		sp.AmbientCaps = append(sp.AmbientCaps, unix.CAP_NET_ADMIN)
	}
	return sp
}

// nsFlags are the namespaces of a helper for the given network.
func nsFlags(n Network) uintptr {
	f := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS)
	if n != NetworkFull {
		f |= unix.CLONE_NEWNET
	}
	return f
}

// plan turns the configuration and the machine's capabilities into the
// helper's policy and the report, or refuses.
func plan(cmd *exec.Cmd, cfg Config, caps Capabilities) (*policy, *report, error) {
	prof, err := cfg.profile()
	if err != nil {
		return nil, nil, err
	}
	netw, err := cfg.network()
	if err != nil {
		return nil, nil, err
	}
	allow, allowText, err := cfg.allowlist(netw)
	if err != nil {
		return nil, nil, err
	}
	bnd, err := cfg.bounds()
	if err != nil {
		return nil, nil, err
	}
	dir := cmd.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	pol := &policy{
		Path: cmd.Path, Args: args, Env: env, Dir: dir,
		Profile: prof, Network: netw, Rlimits: cfg.Rlimits,
		allow: allow,
	}
	rep := &report{Profile: prof, Network: netw}
	if netw == NetworkAllowlist {
		// Without a network namespace of its own the allowlist cannot be
		// built, and silently running with no network or the whole
		// network instead would be a lie: refuse even when degrading.
		if prof == FullAccess {
			return nil, nil, errors.New("sandbox: the network allowlist needs a confined profile, not full-access")
		}
		if !caps.UserNamespaces {
			return nil, nil, fmt.Errorf("%w: network allowlist needs user namespaces for a private network namespace (%s); it is refused even with AllowDegraded", ErrDegraded, caps.UserNamespacesError)
		}
		rep.Allow, rep.Proxy = allowText, proxyURL
	}
	rep.Layers = append(rep.Layers, LayerSession)
	if prof == FullAccess {
		// No network namespace and no socket filter: whatever Network
		// says, the command has the host's network, and the report says so.
		rep.Network, pol.Network = NetworkFull, NetworkFull
		if len(cfg.Rlimits) > 0 {
			rep.Layers = append(rep.Layers, LayerRlimits)
		}
		rep.Layers = append(rep.Layers, LayerCloseFDs)
		return pol, rep, nil
	}

	ws := cfg.Workspace
	if ws == "" {
		ws = dir
	}
	if pol.Workspace, err = existingAbs(ws); err != nil {
		return nil, nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	extraW, err := existingAll(cfg.ExtraWritable)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: extra writable root: %w", err)
	}
	extraR, err := existingAll(cfg.ExtraReadable)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: extra readable root: %w", err)
	}

	var missing []string
	degrade := func(d downgrade) {
		rep.Downgrades = append(rep.Downgrades, d)
		if d.Covered == "" {
			missing = append(missing, d.Layer+" ("+d.Reason+")")
		}
	}

	pol.Mounts = caps.UserNamespaces
	if !pol.Mounts {
		degrade(downgrade{Layer: LayerNamespaces, Reason: "user namespaces unavailable (" + caps.UserNamespacesError + "): " +
			"host processes stay visible (ps, /proc/PID/cmdline, /proc/PID/fd listings); chmod, chown, touch and xattr " +
			"changes to the user's own files outside the writable roots are not stopped; the host's /dev/shm, /run " +
			"sockets and terminals (/dev/pts) are reachable"})
		degrade(downgrade{Layer: LayerProtected, Reason: "read-only protected paths need a mount namespace"})
	}

	if prof == WorkspaceWrite {
		pol.Writable = append(pol.Writable, pol.Workspace)
	} else {
		pol.Readable = append(pol.Readable, pol.Workspace)
	}
	pol.Writable = append(pol.Writable, extraW...)
	pol.Readable = append(pol.Readable, extraR...)
	if pol.Mounts {
		pol.Writable = append(pol.Writable, privateDirs...)
		// /run always hides behind a tmpfs: it holds the user's sockets
		// (session bus, gpg-agent, docker). With the full network, the
		// resolver configuration some systems keep there comes back
		// read-only.
		pol.MaskRun = true
		if netw == NetworkFull {
			pol.Readable = append(pol.Readable, resolverDirs()...)
		}
		if !cfg.ReadEverything {
			pol.Homes = homeDirs()
		}
	}
	pol.Writable = append(pol.Writable, deviceWritable...)
	pol.Readable = append(pol.Readable, systemReadable...)
	if cfg.ReadEverything {
		pol.Readable = append(pol.Readable, "/")
	}
	pol.Writable = dedupe(pol.Writable, nil)
	pol.Readable = dedupe(pol.Readable, pol.Writable)

	rep.Layers = append(rep.Layers, LayerNamespaces, LayerMounts, LayerProtected)
	if pol.Mounts && prof == WorkspaceWrite {
		rep.Protected = protection()
	}
	if pol.Mounts {
		rep.Namespaces = []string{"user", "mount", "pid", "ipc", "uts"}
		if netw != NetworkFull {
			rep.Namespaces = append(rep.Namespaces, "net")
		}
	} else {
		rep.Layers = rep.Layers[:1]
	}
	if len(cfg.Rlimits) > 0 {
		rep.Layers = append(rep.Layers, LayerRlimits)
	}
	planIdentity(pol, rep, prof, extraW, extraR, cfg.ReadEverything)
	planBounds(pol, rep, bnd, os.Geteuid() == 0 && !pol.SwitchID, degrade)
	pol.DropCaps = true
	rep.Layers = append(rep.Layers, LayerCapDrop, LayerNoNewPrivs)

	pol.LandlockABI = caps.LandlockABI
	switch {
	case pol.LandlockABI == 0:
		degrade(downgrade{Layer: LayerLandlock, Reason: "Landlock unavailable: reads are not restricted; with a mount namespace, writes outside writable roots still fail on read-only mounts"})
	default:
		rep.Layers = append(rep.Layers, LayerLandlock)
		rep.LandlockABI = pol.LandlockABI
		rep.Writable, rep.Readable = pol.Writable, pol.Readable
		if pol.LandlockABI < 6 {
			d := downgrade{Layer: "landlock-scopes", Reason: fmt.Sprintf("signal and abstract-socket scopes need ABI 6, have %d", pol.LandlockABI)}
			if pol.Mounts {
				d.Covered = "pid and net namespaces"
			}
			degrade(d)
		}
		if pol.LandlockABI < 4 && netw == NetworkNone {
			d := downgrade{Layer: "landlock-tcp", Reason: fmt.Sprintf("TCP rules need ABI 4, have %d", pol.LandlockABI)}
			if pol.Mounts || caps.Seccomp {
				d.Covered = "net namespace and seccomp socket filter"
			}
			degrade(d)
		}
		if pol.LandlockABI < 4 && netw == NetworkAllowlist {
			degrade(downgrade{Layer: "landlock-tcp", Reason: fmt.Sprintf("TCP rules need ABI 4, have %d", pol.LandlockABI),
				Covered: "net namespace (only lo, where only the proxy listens)"})
		}
	}
	pol.Seccomp = caps.Seccomp
	if pol.Seccomp {
		rep.Layers = append(rep.Layers, LayerSeccomp)
	} else {
		degrade(downgrade{Layer: LayerSeccomp, Reason: "seccomp unavailable: " + caps.SeccompError})
	}
	rep.Layers = append(rep.Layers, LayerCloseFDs)
	if len(missing) > 0 && !cfg.AllowDegraded {
		return nil, nil, fmt.Errorf("%w: %s; set AllowDegraded to run without it", ErrDegraded, strings.Join(missing, "; "))
	}
	return pol, rep, nil
}

// existingAbs returns p made absolute and free of symlinks, or an error
// when it does not exist.
func existingAbs(p string) (string, error) {
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path contains NUL")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

func existingAll(ps []string) ([]string, error) {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		a, err := existingAbs(p)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// dedupe sorts ps, drops duplicates and anything in skip.
func dedupe(ps, skip []string) []string {
	seen := map[string]bool{}
	for _, s := range skip {
		seen[s] = true
	}
	var out []string
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// resolverDirs are the directories under /run that /etc/resolv.conf
// resolves into, when it does (systemd-resolved, NetworkManager).
func resolverDirs() []string {
	t, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || !underAny(t, []string{"/run", "/var/run"}) {
		return nil
	}
	return []string{filepath.Dir(t)}
}

// homeDirs are the home directories the sandbox hides: /home, /root and
// this user's $HOME, those that exist as directories. Landlock already
// denies reading them; hidden, they also hold no unix socket a command
// could connect to by path (gpg-agent, a rootless container engine),
// which Landlock before ABI 9 does not stop.
func homeDirs() []string {
	dirs := []string{"/home", "/root"}
	if h := filepath.Clean(os.Getenv("HOME")); filepath.IsAbs(h) && h != "/" &&
		!underAny(h, dirs) && !underAny(h, systemReadable) && !underAny(h, privateDirs) {
		dirs = append(dirs, h)
	}
	var out []string
	for _, d := range dirs {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}
