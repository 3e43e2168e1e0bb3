package sandbox

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Profile says how much of the machine a sandboxed command may touch.
type Profile string

const (
	// WorkspaceWrite reads system directories, the workspace and the extra
	// roots; writes the workspace, a private /tmp and /dev/shm and the extra
	// writable roots, except protected paths. It is what the zero Profile
	// means.
	WorkspaceWrite Profile = "workspace-write"
	// ReadOnly reads system directories, the workspace and the extra
	// readable roots; writes only a private /tmp and /dev/shm and a few
	// device files such as /dev/null.
	ReadOnly Profile = "read-only"
	// FullAccess applies no filesystem, namespace, Landlock or seccomp
	// confinement: the command still runs in a new session, with the given
	// rlimits and without inherited descriptors beyond 0, 1 and 2. It has
	// the host's network whatever Config.Network says (the Enforcement says
	// NetworkFull).
	FullAccess Profile = "full-access"
)

// Network says what network a sandboxed command may use.
type Network string

const (
	// NetworkNone gives the command an empty network namespace and denies
	// every socket family but AF_UNIX. It is what the zero Network means.
	NetworkNone Network = "none"
	// NetworkFull keeps the host network (AF_VSOCK stays denied).
	NetworkFull Network = "full"
	// NetworkAllowlist gives the command an empty network namespace too,
	// where only lo is up and an HTTP proxy listens on 127.0.0.1:3128
	// (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY say so). The proxy runs in
	// Wrap's process and connects only to the destinations Config.Allow
	// lists; it resolves names on the host and never resolves a name that
	// is not listed. It needs user namespaces: Wrap refuses it without
	// them, even with AllowDegraded, rather than run with no network or
	// the full network instead.
	NetworkAllowlist Network = "allowlist"
)

// Rlimit is a resource limit the helper sets before it runs the command.
type Rlimit struct {
	// Resource is the Linux RLIMIT_* number (for example
	// unix.RLIMIT_NPROC).
	Resource int `json:"resource"`
	// Soft and Hard are the limits in the kernel's unit.
	Soft uint64 `json:"soft"`
	Hard uint64 `json:"hard"`
}

// Config describes the sandbox Wrap puts around a command. The zero value
// (with a Workspace) is the WorkspaceWrite profile without network.
type Config struct {
	// Profile is the confinement; zero means WorkspaceWrite.
	Profile Profile
	// Workspace is the directory the command works in. Empty means the
	// command's Dir (or the current directory when that is empty too).
	Workspace string
	// ExtraWritable are further directories or files the command may
	// write (and read). They must exist.
	ExtraWritable []string
	// ExtraReadable are further directories or files the command may read
	// and execute, such as a toolchain outside the system directories. They
	// must exist.
	ExtraReadable []string
	// ReadEverything lets the command read (and execute) the whole
	// filesystem as the sandbox shows it, not only the system directories,
	// the workspace and ExtraReadable: useful for a read-only review of a
	// machine, at the price of exposing the user's files (~/.ssh among
	// them) to reading. Writes stay limited as the profile says; /tmp,
	// /dev/shm and /run are still private. On a root host the command
	// then stays the host's root, to read what root may: files only root
	// may read are readable, and the process limit, which the kernel does
	// not apply to root, is not enforced (the Enforcement says both).
	ReadEverything bool
	// Network is the network access; zero means NetworkNone.
	Network Network
	// Allow lists the destinations the NetworkAllowlist proxy connects
	// to, as "host:port": "example.com:443" (exactly that name,
	// case-insensitive), "*.example.com:443" (any name below
	// example.com, but neither example.com itself nor
	// evil-example.com), "192.0.2.7:80" or "[2001:db8::7]:80" (an IP
	// address, matched only by that literal address). The port is
	// mandatory. Wrap fails with a *RuleError on an invalid entry, and
	// when Allow is set with another Network. Empty with NetworkAllowlist
	// means the proxy refuses every destination.
	Allow []string
	// Rlimits are set in the helper, in order, before the command starts.
	Rlimits []Rlimit
	// ProcessLimit bounds the processes and threads of one sandbox (one
	// command through Wrap, every command of a Launcher together). Zero
	// means DefaultProcessLimit; a negative value lifts the limit. It is
	// RLIMIT_NPROC, which the kernel counts per user and per user
	// namespace: with the sandbox's own user namespace it counts only
	// the sandbox's processes. Without one (no user namespaces, or
	// FullAccess) it is not applied, since it would count every process
	// of the user on the host; the Enforcement says so.
	ProcessLimit int
	// TmpSize bounds, in bytes, each private tmpfs: /tmp, /dev/shm, /run
	// and the hidden home directories. Zero means DefaultTmpSize. A write
	// beyond it fails with ENOSPC ("No space left on device").
	TmpSize int64
	// ProxyMaxConns bounds the connections the NetworkAllowlist proxy
	// holds open for one sandbox at once; a connection beyond it gets
	// "503 Service Unavailable" and is closed. Zero means
	// DefaultProxyConns.
	ProxyMaxConns int
	// ProxyIdleTimeout closes a proxy connection through which no byte
	// passed, either way, for this long. Zero means DefaultProxyIdle.
	ProxyIdleTimeout time.Duration
	// AllowDegraded lets Wrap run with a layer this machine cannot enforce
	// (no user namespaces, no Landlock, no seccomp). The Enforcement lists every
	// such downgrade. When false, a missing layer makes Wrap fail.
	AllowDegraded bool
}

// Layer names, as they appear in Enforcement.Layers.
const (
	LayerSession    = "new-session"
	LayerNamespaces = "namespaces"
	LayerMounts     = "private-mounts"
	LayerProtected  = "protected-paths"
	LayerRlimits    = "rlimits"
	LayerCapDrop    = "capability-drop"
	LayerNoNewPrivs = "no-new-privs"
	LayerLandlock   = "landlock"
	LayerSeccomp    = "seccomp"
	LayerCloseFDs   = "close-fds"
)

// downgrade is a layer, or part of one, the sandbox runs without (the
// Enforcement renders each as a line of Downgrades).
type downgrade struct {
	// Layer is the missing layer (one of the Layer* names) or part of one,
	// such as "landlock-scopes".
	Layer string `json:"layer"`
	// Reason says why it is missing.
	Reason string `json:"reason"`
	// Covered names what still enforces the same thing, when something
	// does; empty means the protection is gone.
	Covered string `json:"covered,omitempty"`
}

// report says what Wrap arranged for the command: the helper applies every
// layer listed or refuses to run the command.
type report struct {
	// Profile and Network are the effective settings.
	Profile Profile `json:"profile"`
	Network Network `json:"network"`
	// Layers are the layers that will be enforced, in the order the helper
	// applies them.
	Layers []string `json:"layers"`
	// Namespaces are the namespaces the command gets (user, mount, pid,
	// net, ipc, uts), empty when none.
	Namespaces []string `json:"namespaces,omitempty"`
	// LandlockABI is the Landlock ABI version used, 0 when Landlock is not
	// applied.
	LandlockABI int `json:"landlock_abi"`
	// Writable and Readable are the filesystem roots Landlock grants.
	Writable []string `json:"writable,omitempty"`
	Readable []string `json:"readable,omitempty"`
	// Downgrades lists what is missing and why.
	Downgrades []downgrade `json:"downgrades,omitempty"`
	// Protected says what is protected in the writable roots and how
	// (the workspace-write profile with a mount namespace).
	Protected []string `json:"protected,omitempty"`
	// Quarantined, filled in once a command has ended (by whoever ran
	// its Guard), lists what git or an agent on the host would obey that
	// the command created or changed, moved into the workspace's
	// .shellcap/quarantine; QuarantineError says what the check could not
	// do.
	Quarantined     []string `json:"quarantined,omitempty"`
	QuarantineError string   `json:"quarantine_error,omitempty"`
	// Allow and Proxy are set with NetworkAllowlist: the rules in
	// canonical form, and the proxy's URL inside the sandbox.
	Allow []string `json:"allow,omitempty"`
	Proxy string   `json:"proxy,omitempty"`
	// ProxyMaxConns and ProxyIdleTimeout bound the proxy, with
	// NetworkAllowlist.
	ProxyMaxConns    int           `json:"proxy_max_conns,omitempty"`
	ProxyIdleTimeout time.Duration `json:"proxy_idle_timeout,omitempty"`
	// ProcessLimit is the process limit the sandbox enforces, 0 when it
	// enforces none (Downgrades then says why, unless Config lifted it).
	ProcessLimit int `json:"process_limit,omitempty"`
	// TmpSize is the size, in bytes, of each private tmpfs (/tmp,
	// /dev/shm, /run, hidden home directories); 0 without them.
	TmpSize int64 `json:"tmp_size,omitempty"`
	// Identity says who the command is to the host's files and process
	// limits.
	Identity string `json:"identity,omitempty"`
	// Devices are the names in the private /dev, empty when the command
	// sees the host's /dev.
	Devices []string `json:"devices,omitempty"`
}

// Text renders the report for people and models, one fact per line.
func (r *report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sandbox profile %s, network %s\n", r.Profile, r.Network)
	fmt.Fprintf(&b, "layers: %s\n", strings.Join(r.Layers, ", "))
	if len(r.Namespaces) > 0 {
		fmt.Fprintf(&b, "namespaces: %s\n", strings.Join(r.Namespaces, ", "))
	}
	if r.Network == NetworkAllowlist {
		allow := strings.Join(r.Allow, ", ")
		if allow == "" {
			allow = "nothing"
		}
		fmt.Fprintf(&b, "network only through the proxy %s, to: %s\n", r.Proxy, allow)
	}
	if r.Network == NetworkAllowlist && r.ProxyMaxConns > 0 {
		fmt.Fprintf(&b, "proxy: at most %d connections at once, each closed after %v without traffic\n", r.ProxyMaxConns, r.ProxyIdleTimeout)
	}
	if r.Identity != "" {
		fmt.Fprintf(&b, "identity: %s\n", r.Identity)
	}
	if len(r.Devices) > 0 {
		fmt.Fprintf(&b, "devices: a private /dev with only %s\n", strings.Join(r.Devices, ", "))
	}
	if r.ProcessLimit > 0 {
		fmt.Fprintf(&b, "process limit: %d processes and threads (RLIMIT_NPROC of the sandbox's own user namespace)\n", r.ProcessLimit)
	}
	if r.TmpSize > 0 {
		fmt.Fprintf(&b, "private tmpfs: /tmp, /dev/shm, /run and hidden home directories hold at most %s each\n", sizeText(r.TmpSize))
	}
	if r.LandlockABI > 0 {
		fmt.Fprintf(&b, "landlock ABI %d\n", r.LandlockABI)
	}
	if len(r.Writable) > 0 {
		fmt.Fprintf(&b, "writable: %s\n", strings.Join(r.Writable, ", "))
	}
	for _, p := range r.Protected {
		fmt.Fprintf(&b, "protected: %s\n", p)
	}
	if len(r.Quarantined) > 0 {
		fmt.Fprintf(&b, "quarantined after the command: %s\n", strings.Join(r.Quarantined, ", "))
	}
	for _, d := range r.Downgrades {
		if d.Covered != "" {
			fmt.Fprintf(&b, "downgraded: %s: %s (covered by %s)\n", d.Layer, d.Reason, d.Covered)
		} else {
			fmt.Fprintf(&b, "downgraded: %s: %s (NOT enforced)\n", d.Layer, d.Reason)
		}
	}
	return b.String()
}

// Has reports whether layer is among the enforced layers.
func (r *report) Has(layer string) bool {
	for _, l := range r.Layers {
		if l == layer {
			return true
		}
	}
	return false
}

// Capabilities is what this machine can enforce, as found by Doctor.
type Capabilities struct {
	// OS and Arch are the platform.
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// UserNamespaces reports that a helper could create user, mount, pid,
	// net, ipc and uts namespaces and mount a fresh /proc and tmpfs in
	// them; UserNamespacesError says why not when it could not.
	UserNamespaces      bool   `json:"user_namespaces"`
	UserNamespacesError string `json:"user_namespaces_error,omitempty"`
	// LandlockABI is the Landlock ABI version, 0 when Landlock is absent.
	LandlockABI int `json:"landlock_abi"`
	// LandlockNewest is the newest Landlock ABI the sandbox knows.
	LandlockNewest int `json:"landlock_newest,omitempty"`
	// Seccomp reports seccomp filter support for this architecture.
	Seccomp      bool   `json:"seccomp"`
	SeccompError string `json:"seccomp_error,omitempty"`
	// Identity says who a sandboxed command is to the host's files and
	// process limits; IdentityError says why a root host's commands
	// cannot run under the unprivileged identity (Wrap then refuses
	// unless AllowDegraded).
	Identity      string `json:"identity,omitempty"`
	IdentityError string `json:"identity_error,omitempty"`
	// Protections say, one line each, what a sandbox with the default
	// Config protects beyond the layers above, and how.
	Protections []string `json:"protections,omitempty"`
}

// Text renders the capabilities for `shellcap sandbox doctor`.
func (c Capabilities) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "platform: %s/%s\n", c.OS, c.Arch)
	if c.UserNamespaces {
		b.WriteString("user namespaces: yes (user, mount, pid, net, ipc, uts; private /proc, /dev, /tmp, /dev/shm)\n")
	} else {
		fmt.Fprintf(&b, "user namespaces: no (%s)\n", c.UserNamespacesError)
	}
	if c.UserNamespaces {
		b.WriteString("protected with workspace-write:\n")
		for _, p := range protection() {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
	} else {
		b.WriteString("protected paths: none (they need a mount namespace)\n")
	}
	if c.LandlockABI > 0 {
		fmt.Fprintf(&b, "landlock: ABI %d (through go-landlock, which knows up to ABI %d and downgrades to the kernel's)\n", c.LandlockABI, c.LandlockNewest)
	} else {
		b.WriteString("landlock: no\n")
	}
	if c.Seccomp {
		b.WriteString("seccomp: yes\n")
	} else {
		fmt.Fprintf(&b, "seccomp: no (%s)\n", c.SeccompError)
	}
	if c.Identity != "" {
		fmt.Fprintf(&b, "identity: %s\n", c.Identity)
	}
	if c.IdentityError != "" {
		fmt.Fprintf(&b, "identity: NOT the unprivileged one (%s)\n", c.IdentityError)
	}
	for _, p := range c.Protections {
		fmt.Fprintf(&b, "protected: %s\n", p)
	}
	return b.String()
}

var (
	// ErrUnsupported reports a platform without a sandbox implementation.
	ErrUnsupported = errors.New("sandbox: not supported on this platform")
	// ErrDegraded reports a layer this machine cannot enforce when
	// Config.AllowDegraded is false; the error text names the layer.
	ErrDegraded = errors.New("sandbox: a required layer is unavailable")
)

// profile returns the effective profile, defaulting the zero value.
func (c *Config) profile() (Profile, error) {
	switch c.Profile {
	case "", WorkspaceWrite:
		return WorkspaceWrite, nil
	case ReadOnly, FullAccess:
		return c.Profile, nil
	}
	return "", fmt.Errorf("sandbox: unknown profile %q", c.Profile)
}

// network returns the effective network, defaulting the zero value.
func (c *Config) network() (Network, error) {
	switch c.Network {
	case "", NetworkNone:
		return NetworkNone, nil
	case NetworkFull, NetworkAllowlist:
		return c.Network, nil
	}
	return "", fmt.Errorf("sandbox: unknown network %q", c.Network)
}

// allowlist parses Allow for the effective network n, and returns the
// rules in canonical form too. Allow must be empty unless n is
// NetworkAllowlist.
func (c *Config) allowlist(n Network) (allowlist, []string, error) {
	if n != NetworkAllowlist {
		if len(c.Allow) > 0 {
			return nil, nil, fmt.Errorf("sandbox: Allow needs Network %q, not %q", NetworkAllowlist, n)
		}
		return nil, nil, nil
	}
	return parseAllowlist(c.Allow)
}
