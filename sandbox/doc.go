// Package sandbox confines a command that shellcap is about to start: it
// rewrites a prepared exec.Cmd so that the command runs under a Linux
// sandbox made of namespaces, private mounts, Landlock and seccomp, and
// returns the shellcap.Enforcement that says exactly what will be
// enforced (the one sandbox vocabulary of every result and JSON).
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
//	cmd := exec.Command("make", "test") // any prepared *exec.Cmd
//	cmd.Dir = "/src/project"
//	enf, err := sandbox.Wrap(cmd, sandbox.Config{Workspace: "/src/project"})
//	if err != nil {
//		// A layer is missing on this machine (errors.Is(err, sandbox.ErrDegraded)),
//		// or the configuration is invalid. Nothing was started.
//	}
//	fmt.Println(enf.Profile, enf.Layers, enf.Downgrades)
//	err = cmd.Run()
//
// Most callers give a Shell the Confiner instead
// (shellcap.Options{Sandbox: sandbox.Confiner(cfg)}): every Result, and
// every background job of package jobs, then says what was enforced.
//
// sandbox.Doctor reports what the machine can enforce, and what a sandbox
// with the default Config protects and how (`shellcap sandbox doctor`
// prints it); every Enforcement says the same for its command.
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
// Commands of one launcher share the pid namespace and the private /tmp.
// Protected paths are found by the host (which reads what the host's git
// reads) when the launcher starts and again before every command (a
// directory listing is reused while the directory's inode and times are
// unchanged, and inotify watches on every directory the scan read say
// whether anything changed at all), and what is new is bound read-only by
// a thread of the launcher that is not confined (confinement is per
// thread; commands are forked from the confined one and cannot reach the
// launcher): a launcher that lives for hours protects what exists at each
// command's start, and since its commands share its mount namespace, that
// holds for processes earlier commands left running too.
// Launcher.AfterCommand (which a Shell calls after every command and
// session step) then quarantines what git would obey that appeared since.
// sandbox.Confiner returns a
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
//     runs as its own uid mapped to itself, except for a root host: there
//     the command is uid and gid 0 inside but 0x7ff00000 (an id of no
//     account) on the host, with no supplementary group, so every file only
//     root may read (/etc/shadow, /etc/gshadow, SSH host keys, a 0600 file
//     anywhere outside the granted roots) is unreadable by file
//     permissions, and the process limit binds it (the kernel exempts the
//     host's root from RLIMIT_NPROC). The granted roots (workspace,
//     ExtraWritable, ExtraReadable) come back as idmapped mounts the host
//     makes, showing the host's uid and gid 0 as the sandbox's: the command
//     reads and writes there as before and what it creates belongs to
//     root. A filesystem without idmapped mounts makes Wrap refuse (with
//     AllowDegraded: run as the host's root, reported, with only a
//     documented set hidden: shadow and gshadow files, sudoers, SSH host
//     keys, /etc/ssl/private and the like, see hiddenRootFiles). The
//     layers (and `shellcap sandbox doctor`) say which applies.
//     ReadEverything keeps a root host's command the host's root (it asks
//     to read what root may), and so without a process limit; the
//     downgrades say both.
//   - Private mounts: every mount read-only (this also stops chmod, utime
//     and xattr changes outside the writable roots), a fresh /proc of the
//     new pid namespace (host processes are invisible: kill, ptrace and
//     /proc/PID access get ESRCH or ENOENT), a fresh read-only /sys unless
//     Network is NetworkFull, empty tmpfs on /tmp, /dev/shm and /run
//     (hiding the user's sockets there: session bus, agents, a caching
//     resolver; with NetworkFull the directory /etc/resolv.conf points into,
//     if it is under /run, comes back read-only), each tmpfs bounded by
//     TmpSize (default 1 GiB, with a matching inode count), a private
//     read-only /dev holding only null, zero, full, random, urandom and
//     tty (the host's nodes), a devpts instance of its own on /dev/pts
//     with /dev/ptmx, shm, and the fd, stdin, stdout and stderr links (no
//     disk, console, virtual terminal, serial line, /dev/kvm,
//     /dev/userfaultfd, /dev/kmsg or /dev/fuse), and empty tmpfs on /home,
//     /root and $HOME unless
//     ReadEverything (the user's files and sockets there). The writable roots (the workspace for
//     WorkspaceWrite, ExtraWritable) are re-attached read-write; extra
//     readable roots under the hidden directories are re-attached
//     read-only.
//   - Protected paths in each writable root (WorkspaceWrite), found by
//     the host (which reads what the host's git reads; the list reaches
//     the helper in its policy, a sealed memfd when it outgrows a pipe)
//     by one walk of every directory with getdents (no stat per file, no
//     symlink followed, no depth or entry limit: a million files take a
//     fraction of a second): for every
//     repository, nested anywhere (node_modules/*/.git and vendor/
//     included), and for every git directory git would use (a .git
//     directory or the target of a .git pointer file, a bare or separate
//     git directory, .git/modules/* and .git/worktrees/*, the directory
//     commondir names), its config, config.worktree, commondir, hooks and
//     info (the last two created empty when missing), the .git pointer
//     file, the core.hooksPath directory (of the repository's config or the
//     host's global and system config), every file include.path and
//     includeIf.*.path name (whatever the condition) and the program a
//     command-valued variable names by path (core.fsmonitor, core.pager,
//     diff.*.textconv, filter.*.clean, alias.*, ...). The configuration is
//     read the way git reads it (quoting, escapes, continuations,
//     comments after values, repeated keys: every value counts; a test
//     checks the parser against git itself). Then agent, editor and
//     hook-manager configuration (.mcp.json, .vscode, .idea, .zed, .claude,
//     .cursor, .codex, .agents, .gemini, .roo, .kiro, .amazonq, .continue,
//     .windsurf, .devcontainer, opencode.json, .aider.conf.yml,
//     .pre-commit-config.yaml, lefthook.yml and its variants, .husky,
//     .githooks, .gitconfig, .envrc, shell rc files, shellcap.yaml, .yml
//     and .json), wherever it lies. All of these are read-only bind mounts
//     made without following a symlink, and every directory between the
//     root and them is a mount point, so neither they nor their parents can
//     be renamed, removed or replaced by a symlink (EBUSY). .shellcap is
//     hidden behind an empty read-only tmpfs. A directory the walk cannot
//     read (chmod 000 .git) is read-only as a whole. See the Guard below
//     for what does not exist yet when the command starts.
//   - With NetworkAllowlist, lo up in the new network namespace and the
//     proxy's listener on 127.0.0.1:3128 handed to Wrap's process (see
//     Network allowlist below).
//   - The process limit: RLIMIT_NPROC, ProcessLimit (default 512)
//     processes and threads, counted by the kernel per user namespace, so
//     for the sandbox's processes alone (all commands of a Launcher
//     together); a fork beyond it fails with EAGAIN. Then the given
//     rlimits.
//   - All capabilities dropped: bounding, ambient, permitted, effective and
//     inheritable sets.
//   - no_new_privs.
//   - Landlock, through github.com/landlock-lsm/go-landlock: every right of
//     the newest ABI the library knows (11), downgraded best effort to the
//     kernel's ABI, the rest reported: reads and execution only beneath
//     system directories (/usr, /bin, /sbin, /lib*, /etc, /opt, /proc,
//     /sys, /run, /nix/store; /dev may only be listed),
//     the workspace and the extra roots (everywhere with ReadEverything,
//     an opt-in); writes only beneath the writable
//     roots, the private /tmp and /dev/shm and a few device files
//     (/dev/null, /dev/zero, /dev/full, /dev/tty, /dev/ptmx, /dev/pts,
//     /dev/random, /dev/urandom). TCP bind and connect are denied unless
//     Network is NetworkFull, except connect to the proxy's port with
//     NetworkAllowlist. From ABI 6, signals and abstract unix sockets are
//     scoped to the sandbox; from ABI 9, connecting to a pathname unix
//     socket created outside the sandbox is denied everywhere.
//   - A seccomp filter (hand-written; a test decodes the generated program
//     against every rule): system calls of a foreign architecture kill the
//     process, x32 calls get ENOSYS; io_uring_*, ptrace, process_vm_*,
//     bpf, perf_event_open, userfaultfd, keyctl, add_key, request_key,
//     mount, umount2, pivot_root, chroot, open_tree(_attr), move_mount,
//     fsopen, fsconfig, fsmount, fspick, mount_setattr, setns, unshare,
//     kexec_*, *_module and open_by_handle_at get EPERM; clone with any
//     namespace flag gets EPERM and clone3 ENOSYS (libc falls back to
//     clone); ioctl TIOCSTI and TIOCLINUX (compared on 32 bits) get EPERM;
//     setting a setuid or setgid bit gets EPERM (chmod, fchmod, fchmodat,
//     fchmodat2, mknod(at), creat, and open(at) with O_CREAT or O_TMPFILE),
//     so no file the command leaves runs with its owner's identity for
//     whoever runs it later, and openat2 gets ENOSYS (its mode is out of
//     the filter's reach; libc falls back to openat). A chmod of a
//     directory that already has its setgid bit fails too, since chmod
//     passes the bit it keeps; socket and socketpair with AF_VSOCK get EPERM, and with NetworkNone
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
// that names it, unless Config.AllowDegraded is set; the Enforcement then
// lists every downgrade and whether another layer covers it. Without user
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
// when the sandbox's PID 1 exits. The proxy serves at most ProxyMaxConns
// (default 128) connections of one sandbox at once, and the proxies of one
// process together at most a quarter of its RLIMIT_NOFILE (each
// connection costs two descriptors), answering more with 503; it closes a connection through which nothing passed, either way,
// for ProxyIdleTimeout (default 5 minutes): a command cannot exhaust the
// host process's descriptors. Without user namespaces Wrap refuses the
// allowlist even with AllowDegraded.
//
// # Guard
//
// The kernel cannot forbid creating one name inside a directory that must
// stay writable (.git, for index.lock, ORIG_HEAD and the objects). So what
// git would obey once created there — commondir, config.worktree, a hook
// in a repository without protected hooks, the config and hooks of a
// repository the command itself makes with git init or git clone, a .git
// pointer file, a separate git directory, an agent configuration that did
// not exist — cannot be made read-only before it exists. A Guard
// (Launcher.AfterCommand for launched commands; NewGuard for commands
// Wrap starts; for background jobs, a guard process of this binary that
// the job's supervisor runs beside the job, see the Confiner's ConfineJob)
// closes the gap on the host: when a command,
// a session step or a job ends, it walks the workspace again and moves
// every such name that appeared or changed since it last trusted the
// workspace into .shellcap/quarantine/<time>/, keeping its relative path
// (the sandbox hides .shellcap; outside the workspace, or on another
// filesystem, the name is renamed in place to one nothing reads), and the
// result names it (Result.Sandbox.Quarantined and a note; for jobs, the
// job's Enforcement.Quarantined). What exists before the first command is the host's; what
// changes between commands is the host's too when no sandboxed process
// was alive since the last check, and is quarantined before the next
// command otherwise (a process left running, a session's shell).
//
// Not protected:
//
//   - Kernel bugs: the kernel is shared; seccomp only narrows its surface.
//   - Pathname unix sockets outside the hidden directories (/tmp,
//     /dev/shm, /run, /home, /root and $HOME, unless ReadEverything): below
//     Landlock ABI 9 a command can connect to a host socket it can name
//     elsewhere (for example under /var/tmp or /srv, in a directory it
//     cannot otherwise read); from ABI 9 Landlock denies it.
//   - Without user namespaces (AllowDegraded): no private /dev (Landlock
//     still lets only the listed device files open), no unprivileged
//     identity for a root host, no process limit and no private tmpfs.
//   - Between a command's end and the next check, what a process it left
//     running creates: names git would obey that did not exist at the
//     start are moved out when the next command, step or job ends (or
//     before the next command starts), not at once; a host git run in
//     that window obeys them. The kernel offers no way to forbid one name
//     in a writable directory; the guard's inotify watches only tell it
//     whether to scan again, they do not move anything at once.
//   - What the host itself changes in the workspace's git metadata while
//     a sandboxed process is alive (editing .git/config with git config
//     during a long command or an open session): the host cannot tell
//     its own change from the sandbox's, so it is quarantined too
//     (recoverable from .shellcap/quarantine). In-place edits of a file
//     the sandbox holds read-only (an editor saving .vscode/settings.json)
//     are not.
//   - A repository planted inside a git directory's objects, refs or
//     logs (git finds it only when run from inside there): the walk leaves
//     those to git.
//   - Git commands that write a protected file fail inside the sandbox:
//     git config, git remote add, git branch -m, git submodule add, git
//     worktree add (the config of a repository a command makes is
//     quarantined when the command ends; git keeps working without it).
//   - Anything the command writes into the workspace that people or agents
//     run later outside the sandbox as ordinary project files (Makefiles,
//     package scripts, CI files, a .gitattributes choosing a filter the
//     host's own configuration defines).
//   - Memory and CPU beyond the given rlimits (no cgroups yet): the process
//     count, the private tmpfs sizes and the proxy's connections are
//     bounded, but many processes under the limit may still each use
//     memory up to RLIMIT_AS.
//   - With NetworkFull: the whole network of the host, UDP and MPTCP
//     included.
//   - With NetworkAllowlist: whatever the allowed destinations accept
//     (uploads to an allowed host, domain fronting through an allowed CDN),
//     and whatever an allowed name resolves to on the host, private and
//     link-local addresses included.
package sandbox
