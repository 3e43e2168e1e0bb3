// Package sandbox confines a command that shellcap is about to start: it
// rewrites a prepared exec.Cmd so that the command runs under a Linux
// sandbox made of namespaces, private mounts, Landlock and seccomp, and
// returns a Report of exactly what will be enforced.
//
// The rewritten command starts this very binary as a helper (an entry point
// registered with internal/reexec and dispatched from this package's init,
// so any binary that links the package, test binaries included, can act as
// the helper). The helper reads its policy from an inherited pipe, never
// from argv or the environment, applies the layers on its locked main
// thread and execs the original command.
//
// # Quick start
//
//	cmd, err := sh.Cmd("make test", "", nil) // or any prepared *exec.Cmd
//	if err != nil { ... }
//	rep, err := sandbox.Wrap(cmd, sandbox.Config{Workspace: "/src/project"})
//	if err != nil {
//		// A layer is missing on this machine (errors.Is(err, sandbox.ErrDegraded)),
//		// or the configuration is invalid. Nothing was started.
//	}
//	fmt.Print(rep.Text())
//	err = cmd.Run()
//
// sandbox.Doctor reports what the machine can enforce.
//
// # Launcher
//
// Building the sandbox costs a helper process and several milliseconds, so
// a Launcher builds it once and then forks each command from inside it:
//
//	l, err := sandbox.NewLauncher(sandbox.Config{Workspace: "/src/project"})
//	if err != nil { ... }
//	defer l.Close()
//	cmd := exec.Command("/bin/bash", "-c", "make test")
//	cmd.Stdout, cmd.Stderr = outW, errW // *os.File or nil
//	p, err := l.Start(cmd)             // p is this process's child
//	state, err := p.Wait()
//
// The launcher helper applies the same layers as the one-shot helper, but
// stays outside the pid namespace it creates for its commands: it unshares
// the namespace for its children, forks an init into it (which mounts the
// namespace's /proc, reaps orphans and ignores signals, and which commands
// can neither signal nor trace: it is outside their Landlock domain and not
// dumpable), confines its own serving thread, and then forks every command
// with CLONE_PARENT, so the command is the host's child exactly as with
// exec.Cmd.Start. The launcher is invisible to its commands. Closing it, or
// its death, ends the init and with it every process in the namespace.
// Commands of one launcher share the pid namespace, the private /tmp and
// the protected paths found when it started. sandbox.Confiner returns a
// shellcap.LaunchingConfiner, so a Shell, its sessions and the MCP server
// start every command through one Launcher.
//
// # Security
//
// With the WorkspaceWrite (default) or ReadOnly profile and all layers
// available, the helper applies, in this order, failing closed at every
// step (exit status 125 and a message on stderr, the command never runs):
//
//   - New user, mount, pid, ipc and uts namespaces, plus a new network
//     namespace (only lo, down) unless Network is NetworkFull. The command
//     runs as its own uid mapped to itself.
//   - Private mounts: every mount read-only (this also stops chmod, utime
//     and xattr changes outside the writable roots), a fresh /proc of the
//     new pid namespace (host processes are invisible: kill, ptrace and
//     /proc/PID access get ESRCH or ENOENT), a fresh read-only /sys unless
//     Network is NetworkFull, empty tmpfs on /tmp, /dev/shm and /run
//     (hiding the user's sockets there: session bus, agents, a caching
//     resolver; with NetworkFull the directory /etc/resolv.conf points into,
//     if it is under /run, comes back read-only), and a private devpts
//     instance on /dev/pts and /dev/ptmx (the host's terminals are out of
//     reach), and empty tmpfs on /home, /root and $HOME unless
//     ReadEverything (the user's files and sockets there). The writable roots (the workspace for
//     WorkspaceWrite, ExtraWritable) are re-attached read-write; extra
//     readable roots under the hidden directories are re-attached
//     read-only.
//   - Protected paths in each writable root, to four directories deep:
//     .git/hooks and .git/config of every repository (nested ones too; a
//     missing hooks directory is created empty first), the directory
//     core.hooksPath names when it lies in the root, a .git pointer file,
//     .shellcap, .mcp.json, .vscode, .idea, .claude, .cursor, .codex,
//     .agents, .husky, .githooks, .envrc, .gitconfig and shell rc files are
//     read-only bind mounts, and every directory between the root and them
//     is a mount point, so neither they nor their parents can be renamed,
//     removed or replaced by a symlink (EBUSY). Other names are protected
//     only when they exist as the command starts.
//   - With NetworkAllowlist, lo up in the new network namespace and the
//     proxy's listener on 127.0.0.1:3128 handed to Wrap's process (see
//     Network allowlist below).
//   - The given rlimits.
//   - All capabilities dropped: bounding, ambient, permitted, effective and
//     inheritable sets.
//   - no_new_privs.
//   - Landlock with every filesystem right of the best ABI the kernel has
//     (up to 7): reads and execution only beneath system directories (/usr,
//     /bin, /sbin, /lib*, /etc, /opt, /proc, /sys, /dev, /run, /nix/store),
//     the workspace and the extra roots (everywhere with ReadEverything,
//     an opt-in); writes only beneath the writable
//     roots, the private /tmp and /dev/shm and a few device files
//     (/dev/null, /dev/zero, /dev/full, /dev/tty, /dev/ptmx, /dev/pts,
//     /dev/random, /dev/urandom). TCP bind and connect are denied unless
//     Network is NetworkFull, except connect to the proxy's port with
//     NetworkAllowlist. From ABI 6, signals and abstract unix sockets are
//     scoped to the sandbox.
//   - A seccomp filter: system calls of a foreign architecture kill the
//     process, x32 calls get ENOSYS; io_uring_*, ptrace, process_vm_*,
//     bpf, perf_event_open, userfaultfd, keyctl, add_key, request_key,
//     mount, umount2, pivot_root, chroot, open_tree(_attr), move_mount,
//     fsopen, fsconfig, fsmount, fspick, mount_setattr, setns, unshare,
//     kexec_*, *_module and open_by_handle_at get EPERM; clone with any
//     namespace flag gets EPERM and clone3 ENOSYS (libc falls back to
//     clone); ioctl TIOCSTI and TIOCLINUX (compared on 32 bits) get EPERM;
//     socket and socketpair with AF_VSOCK get EPERM, and with NetworkNone
//     any family but AF_UNIX does (AF_INET and AF_INET6 are allowed with
//     NetworkAllowlist, whose namespace has nothing else to reach).
//   - Every descriptor but 0, 1 and 2 is closed at exec, so descriptors the
//     host leaked are unusable. The descriptors a command is given (its
//     standard streams, a Launcher command's ExtraFiles) are checked on the
//     host first: Wrap and Launcher.Start refuse one that reaches a host
//     file beyond the profile's grants (a writable file outside the
//     writable roots or inside .shellcap, a directory, a device other than
//     the null-like ones and pseudo-terminals, the host's own terminal, an
//     anonymous inode such as a pidfd). Pipes, sockets, memfds and
//     read-only files pass.
//   - The command runs in a new session (no controlling terminal).
//
// FullAccess applies only the new session, the rlimits and the descriptor
// closing.
//
// When a layer is unavailable (no user namespaces, no Landlock, no seccomp
// for the architecture) Wrap refuses with an error wrapping ErrDegraded
// that names it, unless Config.AllowDegraded is set; the Report then lists
// every downgrade and whether another layer covers it. Without user
// namespaces there are no private mounts and no protected paths: Landlock
// and seccomp still confine writes, reads and the network.
//
// # Network allowlist
//
// With Network NetworkAllowlist and Allow rules such as "example.com:443"
// or "*.githubusercontent.com:443", the command can reach the network only
// through an HTTP proxy: the helper raises lo in the sandbox's empty network
// namespace, listens on 127.0.0.1:3128 there and hands the listening socket
// and a pidfd of itself to Wrap's process, which serves CONNECT host:port
// and absolute-form http:// requests on it. HTTP_PROXY, HTTPS_PROXY,
// ALL_PROXY and their lower-case twins point at the proxy; NO_PROXY is
// empty. Each destination is checked against the rules before anything is
// resolved: a destination not listed gets 403 and its name is never looked
// up, an IP address matches only a rule with that address, and a wildcard
// matches names strictly below its domain. Allowed names are resolved by
// the host. There is no DNS inside: programs that ignore the proxy
// variables get no network at all. The proxy stops, closing every tunnel,
// when the sandbox's PID 1 exits. Without user namespaces Wrap refuses the
// allowlist even with AllowDegraded.
//
// Not protected:
//
//   - Kernel bugs: the kernel is shared; seccomp only narrows its surface.
//   - Pathname unix sockets outside the hidden directories (/tmp,
//     /dev/shm, /run, /home, /root and $HOME, unless ReadEverything): below
//     Landlock ABI 9 a command can connect to a host socket it can name
//     elsewhere (for example under /var/tmp or /srv, in a directory it
//     cannot otherwise read).
//   - Protected paths created after the start (of the command, or of the
//     Launcher), or that are symlinks (only
//     their target inside the root is protected; the link can be
//     replaced), and git commands that write .git/config (git config,
//     git branch -m, git remote add) fail inside the sandbox.
//   - Anything the command writes into the workspace that people or agents
//     run later outside the sandbox (Makefiles, package scripts, CI files).
//   - Resource exhaustion beyond the given rlimits: no cgroups yet.
//   - With NetworkFull: the whole network of the host, UDP and MPTCP
//     included.
//   - With NetworkAllowlist: whatever the allowed destinations accept
//     (uploads to an allowed host, domain fronting through an allowed CDN),
//     and whatever an allowed name resolves to on the host, private and
//     link-local addresses included.
package sandbox
