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

	// allow is the parsed Config.Allow. It stays in Wrap's process, where
	// the proxy enforces it; the helper never sees it.
	allow allowlist

	Rlimits     []Rlimit `json:"rlimits"`
	DropCaps    bool     `json:"drop_caps"`
	LandlockABI int      `json:"landlock_abi"`
	Seccomp     bool     `json:"seccomp"`
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
