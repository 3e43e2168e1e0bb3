package container

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// Mode says how commands map onto containers.
type Mode int

const (
	// Stateless runs every command in a fresh container (`run --rm`), so
	// nothing a command does outlives it. It is the zero value.
	Stateless Mode = iota
	// Persistent starts one long-lived container on the first Run and runs
	// each command in it with `exec`, so files in /tmp and installed tools
	// persist between commands until Close removes the container.
	Persistent
)

// String returns "stateless" or "persistent".
func (m Mode) String() string {
	switch m {
	case Stateless:
		return "stateless"
	case Persistent:
		return "persistent"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads a mode's name as String writes it: "stateless" or
// "persistent" (what a flag or a configuration file holds). The empty
// string is Stateless, the zero Mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "stateless":
		return Stateless, nil
	case "persistent":
		return Persistent, nil
	}
	return 0, optionErr("Mode", "%q is neither stateless nor persistent", s)
}

// Defaults used when the matching [Options] field is zero.
const (
	DefaultMemory    = 512 << 20 // Options.Memory: 512 MiB
	DefaultPids      = 256       // Options.Pids
	DefaultTmpfsSize = 64 << 20  // Options.TmpfsSize: 64 MiB
	DefaultNoFile    = 1024      // Options.NoFile
	DefaultNProc     = 256       // Options.NProc
	DefaultShellPath = "/bin/sh" // Options.ShellPath
)

// WorkspaceMount is where the workspace appears inside the container.
const WorkspaceMount = "/workspace"

// Options configures an [Executor]. The zero value is the hardened default
// of Microsoft Agent Framework's docker shell tool: no network, user
// 65534:65534, read-only root filesystem, every capability dropped,
// no-new-privileges, a 64 MiB tmpfs on /tmp, 512 MiB of memory, 256
// processes, the Shell's workspace mounted read-only, one fresh container
// per command, and otherwise the Shell's settings (see the package
// documentation for the table). Every field documents what its zero value
// means. [New] copies the options.
type Options struct {
	// Engine is the container CLI: "podman" or "docker", or a path to one
	// of them. Empty means podman from PATH, else docker.
	Engine string

	// EngineArgs are global options put before the subcommand, for example
	// {"--runtime", "runc", "--cgroup-manager=cgroupfs"} for podman. They
	// are host configuration, never model input, and are not validated
	// beyond having to start with "-". Nil adds nothing.
	EngineArgs []string

	// Image is the image to run. Exactly one of Image and RootFS is set.
	Image string

	// RootFS is a directory holding an unpacked root filesystem, run with
	// podman's --rootfs (podman only). It needs /bin/sh (or Shell) and an
	// empty /workspace directory when Workspace is set.
	RootFS string

	// Mode picks stateless (zero) or persistent containers.
	Mode Mode

	// Workspace is a host directory mounted at /workspace, where commands
	// start. Empty means the Shell's workspace (unless NoWorkspace is
	// set). The path may not contain ':', ',' or a newline (they would
	// change the mount's meaning).
	Workspace string

	// NoWorkspace mounts no host directory at all: commands start in /tmp
	// and see only the image. Zero (false) mounts Workspace.
	NoWorkspace bool

	// WritableWorkspace mounts the workspace read-write. Zero (false)
	// mounts it read-only. It is refused when the mounted directory is the
	// workspace of a read-only Shell.
	WritableWorkspace bool

	// ShellPath is the shell binary that runs each command as
	// `ShellPath -c COMMAND` inside the container, an absolute path in the
	// image. Empty means /bin/sh.
	ShellPath string

	// Memory limits the container's memory in bytes (--memory). Zero means
	// 512 MiB; negative is an error.
	Memory int64

	// Pids limits the number of processes in the container (--pids-limit).
	// Zero means 256; negative is an error.
	Pids int

	// TmpfsSize is the size of the tmpfs on /tmp in bytes. Zero means 64 MiB.
	TmpfsSize int64

	// NoFile and NProc are the RLIMIT_NOFILE and RLIMIT_NPROC set with
	// --ulimit (soft = hard). Zero means 1024, and for NProc the Shell's
	// MaxProcesses, or 256 when the Shell sets none. They are always set:
	// engines otherwise ask for limits that a nested or constrained host
	// may refuse to grant.
	NoFile int
	NProc  int

	// Env holds variables for every command, on top of those the
	// container takes from the Shell (see the package documentation:
	// the non-interactive defaults and the Shell's Options.Env, never the
	// host's own variables). They reach the container through an env file
	// created 0600 in a private directory and removed after use, never
	// through argv, so they do not show in `ps`. Names must be shell
	// names; values must not hold NUL, CR or LF. Nil adds nothing.
	Env map[string]string

	// ExtraArgs are further `run` arguments, put before the image. Anything
	// that weakens isolation or overrides a setting of these Options is
	// rejected at New, in every spelling; see [CheckExtraArgs] for what is
	// allowed. Nil adds nothing.
	ExtraArgs []string

	// DefaultTimeout bounds a Request that sets no Timeout. Zero means
	// the Shell's Options.DefaultTimeout.
	DefaultTimeout time.Duration

	// MaxTimeout is the largest Timeout a Request may ask for. Zero means
	// the Shell's Options.MaxTimeout.
	MaxTimeout time.Duration

	// MaxOutputBytes caps the bytes read from stdout and stderr together;
	// a command that prints more is killed. Zero means the Shell's
	// Options.MaxOutputBytes; negative means no cap.
	MaxOutputBytes int64

	// MaxOutputChars caps the text the model reads (Result.Text). Zero
	// means the Shell's Options.MaxOutputChars; negative means no cap.
	MaxOutputChars int

	// HeadAndTail makes over-long text keep its beginning and end. Zero
	// (false) means the Shell's Options.HeadAndTail.
	HeadAndTail bool

	// KeepANSI keeps ANSI escape sequences in the output. Zero (false)
	// means the Shell's Options.KeepANSI.
	KeepANSI bool

	// EngineTimeout bounds each engine housekeeping call (starting the
	// persistent container, kill, rm). Zero means 60 s.
	EngineTimeout time.Duration
}

// resolve fills defaults, the Shell's settings st where a field is zero,
// and validates; it works on a copy. readOnly says whether the Shell's
// workspace is read-only.
func (o Options) resolve(st core.Settings, readOnly bool) (Options, error) {
	o.EngineArgs = append([]string(nil), o.EngineArgs...)
	o.ExtraArgs = append([]string(nil), o.ExtraArgs...)
	if o.Env != nil {
		env := make(map[string]string, len(o.Env))
		for k, v := range o.Env {
			env[k] = v
		}
		o.Env = env
	}
	engine, err := resolveEngine(o.Engine)
	if err != nil {
		return o, err
	}
	o.Engine = engine
	for _, a := range o.EngineArgs {
		if !strings.HasPrefix(a, "-") && !isEngineArgValue(o.EngineArgs, a) {
			return o, optionErr("EngineArgs", "%q is not an option", a)
		}
	}
	switch {
	case o.Image == "" && o.RootFS == "":
		return o, optionErr("Image", "set Image or RootFS")
	case o.Image != "" && o.RootFS != "":
		return o, optionErr("RootFS", "set Image or RootFS, not both")
	case o.Image != "" && strings.HasPrefix(o.Image, "-"):
		return o, optionErr("Image", "%q looks like an option", o.Image)
	}
	if o.RootFS != "" {
		if engineKind(o.Engine) != "podman" {
			return o, optionErr("RootFS", "needs podman (engine is %s)", o.Engine)
		}
		abs, err := existingDir(o.RootFS)
		if err != nil {
			return o, optionErr("RootFS", "%v", err)
		}
		o.RootFS = abs
	}
	if o.Mode != Stateless && o.Mode != Persistent {
		return o, optionErr("Mode", "unknown mode %d", int(o.Mode))
	}
	if err := o.resolveWorkspace(st.Workspace, readOnly); err != nil {
		return o, err
	}
	if o.ShellPath == "" {
		o.ShellPath = DefaultShellPath
	}
	if !strings.HasPrefix(o.ShellPath, "/") {
		return o, optionErr("ShellPath", "%q must be an absolute path inside the container", o.ShellPath)
	}
	ints := []struct {
		name string
		v    *int64
		def  int64
	}{
		{"Memory", &o.Memory, DefaultMemory},
		{"TmpfsSize", &o.TmpfsSize, DefaultTmpfsSize},
	}
	for _, f := range ints {
		if *f.v < 0 {
			return o, optionErr(f.name, "must not be negative")
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	small := []struct {
		name string
		v    *int
		def  int
	}{
		{"Pids", &o.Pids, DefaultPids},
		{"NoFile", &o.NoFile, DefaultNoFile},
		{"NProc", &o.NProc, cmp.Or(st.MaxProcesses, DefaultNProc)},
	}
	for _, f := range small {
		if *f.v < 0 {
			return o, optionErr(f.name, "must not be negative")
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if err := checkEnv("Env", o.Env); err != nil {
		return o, err
	}
	if err := CheckExtraArgs(o.ExtraArgs); err != nil {
		return o, &shellcap.OptionError{Option: "ExtraArgs", Reason: err.Error()}
	}
	durations := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"DefaultTimeout", &o.DefaultTimeout, st.DefaultTimeout},
		{"MaxTimeout", &o.MaxTimeout, st.MaxTimeout},
		{"EngineTimeout", &o.EngineTimeout, 60 * time.Second},
	}
	for _, d := range durations {
		if *d.v < 0 {
			return o, optionErr(d.name, "must not be negative")
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if o.DefaultTimeout > o.MaxTimeout {
		return o, optionErr("DefaultTimeout", "%v is above MaxTimeout %v", o.DefaultTimeout, o.MaxTimeout)
	}
	o.MaxOutputBytes = cmp.Or(o.MaxOutputBytes, st.MaxOutputBytes)
	o.MaxOutputChars = cmp.Or(o.MaxOutputChars, st.MaxOutputChars)
	o.HeadAndTail = o.HeadAndTail || st.HeadAndTail
	o.KeepANSI = o.KeepANSI || st.KeepANSI
	return o, nil
}

// resolveWorkspace picks the mounted directory: none with NoWorkspace,
// else Workspace, else the Shell's workspace.
func (o *Options) resolveWorkspace(shellWorkspace string, readOnly bool) error {
	if o.NoWorkspace {
		if o.Workspace != "" || o.WritableWorkspace {
			return optionErr("NoWorkspace", "mounts nothing; leave Workspace and WritableWorkspace unset")
		}
		return nil
	}
	what := "Workspace"
	if o.Workspace == "" {
		o.Workspace, what = shellWorkspace, "the Shell's workspace (set Workspace or NoWorkspace)"
	}
	abs, err := existingDir(o.Workspace)
	if err != nil {
		return optionErr("Workspace", "%s: %v", what, err)
	}
	if strings.ContainsAny(abs, ":,\n") {
		return optionErr("Workspace", "%s %q contains ':', ',' or a newline, which a mount specification cannot hold", what, abs)
	}
	if o.WritableWorkspace && readOnly && abs == shellWorkspace {
		return optionErr("WritableWorkspace", "the Shell's workspace %s is read-only", abs)
	}
	o.Workspace = abs
	return nil
}

// isEngineArgValue reports whether a follows an option written without "=".
func isEngineArgValue(args []string, a string) bool {
	for i := 1; i < len(args); i++ {
		if args[i] == a && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
			return true
		}
	}
	return false
}

// resolveEngine finds the engine binary.
func resolveEngine(name string) (string, error) {
	if name == "" {
		for _, n := range []string{"podman", "docker"} {
			if p, err := exec.LookPath(n); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%w: neither podman nor docker is in PATH", ErrNoEngine)
	}
	if k := engineKind(name); k != "podman" && k != "docker" {
		return "", optionErr("Engine", "%q is neither podman nor docker", name)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	return p, nil
}

// engineKind returns "podman" or "docker" for an engine path.
func engineKind(path string) string {
	return filepath.Base(path)
}

func existingDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", real)
	}
	return real, nil
}

func optionErr(option, format string, args ...any) error {
	return &shellcap.OptionError{Option: option, Reason: fmt.Sprintf(format, args...)}
}
