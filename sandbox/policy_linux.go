package sandbox

// policy is what the parent hands the helper through the inherited pipe.
type policy struct {
	// The command to exec at the end, as prepared by the caller.
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`

	Profile Profile `json:"profile"`
	Network Network `json:"network"`

	// Mounts: the helper runs in fresh user and mount namespaces and sets
	// up private mounts.
	Mounts bool `json:"mounts"`
	// Workspace is the workspace root; protected paths are searched in it
	// when it is writable.
	Workspace string `json:"workspace"`
	// Writable and Readable are the Landlock roots (Readable excludes
	// Writable). With Mounts, they are also re-attached over the private
	// /tmp, /dev/shm and /run, Writable ones read-write.
	Writable []string `json:"writable"`
	Readable []string `json:"readable"`
	// MaskRun hides the host /run behind an empty tmpfs (host unix sockets).
	MaskRun bool `json:"mask_run"`
	// Homes are home directories hidden behind an empty tmpfs (the
	// user's sockets and files there); roots inside them come back.
	Homes []string `json:"homes,omitempty"`
	// Protect are the paths the helper protects in the writable roots,
	// found by the host (which reads what the host's git reads). A
	// launcher gets them in requests instead.
	Protect []protectEntry `json:"protect,omitempty"`
	// ProcByInit leaves /proc to the init process of a launcher's pid
	// namespace: only a process inside that namespace can mount its procfs.
	ProcByInit bool `json:"proc_by_init,omitempty"`

	// SwitchID runs the helper and the command as sandboxHostID on the
	// host (uid and gid 0 inside); IDMounts are then the idmapped mounts
	// of the granted roots the host made, by helper descriptor, and
	// granted the roots they are made of (see identity_linux.go).
	// HideRootFiles hides hiddenRootFiles: the fallback of a root host
	// without the unprivileged identity.
	HideRootFiles bool      `json:"hide_root_files,omitempty"`
	SwitchID      bool      `json:"switch_id,omitempty"`
	IDMounts      []idMount `json:"id_mounts,omitempty"`
	granted       []grantedRoot
	// noProcessLimit, when set, says why the configuration itself rules
	// the process limit out.
	noProcessLimit string

	// allow is the parsed Config.Allow. It stays in Wrap's process, where
	// the proxy enforces it; the helper never sees it.
	allow allowlist
	// proxy bounds the allowlist proxy; like allow, it stays in Wrap's
	// process.
	proxy proxyLimits

	Rlimits []Rlimit `json:"rlimits"`
	// ProcessLimit, when not zero, is the RLIMIT_NPROC of the sandbox's
	// own user namespace, set before Rlimits.
	ProcessLimit uint64 `json:"process_limit,omitempty"`
	// TmpSize is the size of each private tmpfs, in bytes.
	TmpSize     int64 `json:"tmp_size,omitempty"`
	DropCaps    bool  `json:"drop_caps"`
	LandlockABI int   `json:"landlock_abi"`
	Seccomp     bool  `json:"seccomp"`
}

// systemReadable are the read-only roots every confined profile may read and
// execute from (those that exist).
var systemReadable = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/proc", "/sys", "/dev", "/run", "/nix/store",
}

// deviceWritable are device files every confined profile may write.
var deviceWritable = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts",
	"/dev/random", "/dev/urandom",
}

// privateDirs are replaced by an empty tmpfs when the helper has a mount
// namespace; the command may write them.
var privateDirs = []string{"/tmp", "/dev/shm"}
