package container

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellcap/shellcap"
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

// Defaults used when the matching [Options] field is zero.
const (
	DefaultMemory    = 512 << 20 // Options.Memory: 512 MiB
	DefaultPids      = 256       // Options.Pids
	DefaultTmpfsSize = 64 << 20  // Options.TmpfsSize: 64 MiB
	DefaultNoFile    = 1024      // Options.NoFile
	DefaultNProc     = 256       // Options.NProc
	DefaultShell     = "/bin/sh" // Options.Shell
)

// WorkspaceMount is where the workspace appears inside the container.
const WorkspaceMount = "/workspace"

// Options configures an [Executor]. The zero value is the hardened default
// of Microsoft Agent Framework's docker shell tool: no network, user
// 65534:65534, read-only root filesystem, every capability dropped,
// no-new-privileges, a 64 MiB tmpfs on /tmp, 512 MiB of memory, 256
// processes, the workspace (if any) mounted read-only, one fresh container
// per command. Every field documents what its zero value means. [New]
// copies the options.
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
	// start. Empty mounts nothing and commands start in /tmp. The path may
	// not contain ':' or ',' (they would change the mount's meaning).
	Workspace string

	// WritableWorkspace mounts the workspace read-write. Zero (false)
	// mounts it read-only.
	WritableWorkspace bool

	// Shell runs each command as `Shell -c COMMAND` inside the container.
	// Empty means /bin/sh.
	Shell string

	// Memory limits the container's memory in bytes (--memory). Zero means
	// 512 MiB; negative is an error.
	Memory int64

	// Pids limits the number of processes in the container (--pids-limit).
	// Zero means 256; negative is an error.
	Pids int

	// TmpfsSize is the size of the tmpfs on /tmp in bytes. Zero means 64 MiB.
	TmpfsSize int64

	// NoFile and NProc are the RLIMIT_NOFILE and RLIMIT_NPROC set with
	// --ulimit (soft = hard). Zero means 1024 and 256. They are always set:
	// engines otherwise ask for limits that a nested or constrained host
	// may refuse to grant.
	NoFile int
	NProc  int

	// Env holds variables for every command. They reach the container
	// through an env file created 0600 in a private directory and removed
	// after use, never through argv, so they do not show in `ps`. Names
	// must be shell names; values must not hold NUL, CR or LF. Nil adds
	// nothing.
	Env map[string]string

	// ExtraArgs are further `run` arguments, put before the image. Anything
	// that weakens isolation or overrides a setting of these Options is
	// rejected at New, in every spelling; see [CheckExtraArgs] for what is
	// allowed. Nil adds nothing.
	ExtraArgs []string

	// Authorize, when set, is asked about every command before it runs;
	// a non-nil Result is returned to the caller instead of running the
	// command. Pass a [shellcap.Shell]'s Authorize method to apply its
	// policy and approval. Nil checks only NUL bytes and UTF-8.
	Authorize func(ctx context.Context, command string) *shellcap.Result

	// DefaultTimeout bounds a Request that sets no Timeout. Zero means
	// shellcap.DefaultTimeout (30 s).
	DefaultTimeout time.Duration

	// MaxTimeout is the largest Timeout a Request may ask for. Zero means
	// shellcap.DefaultMaxTimeout (10 minutes).
	MaxTimeout time.Duration

	// MaxOutputBytes caps the bytes read from stdout and stderr together;
	// a command that prints more is killed. Zero means
	// shellcap.DefaultMaxOutputBytes; negative means no cap.
	MaxOutputBytes int64

	// MaxOutputChars caps the text the model reads ([Executor.Text]). Zero
	// means shellcap.DefaultMaxOutputChars; negative means no cap.
	MaxOutputChars int

	// HeadAndTail makes over-long text keep its beginning and end. Zero
	// (false) keeps the end.
	HeadAndTail bool

	// KeepANSI keeps ANSI escape sequences in the output. Zero strips them.
	KeepANSI bool

	// EngineTimeout bounds each engine housekeeping call (starting the
	// persistent container, kill, rm). Zero means 60 s.
	EngineTimeout time.Duration
}

// resolve fills defaults and validates; it works on a copy.
func (o Options) resolve() (Options, error) {
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
	if o.Workspace != "" {
		abs, err := existingDir(o.Workspace)
		if err != nil {
			return o, optionErr("Workspace", "%v", err)
		}
		if strings.ContainsAny(abs, ":,\n") {
			return o, optionErr("Workspace", "%q contains ':', ',' or a newline, which a mount specification cannot hold", abs)
		}
		o.Workspace = abs
	}
	if o.Shell == "" {
		o.Shell = DefaultShell
	}
	if !strings.HasPrefix(o.Shell, "/") {
		return o, optionErr("Shell", "%q must be an absolute path inside the container", o.Shell)
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
		{"NProc", &o.NProc, DefaultNProc},
	}
	for _, f := range small {
		if *f.v < 0 {
			return o, optionErr(f.name, "must not be negative")
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if err := checkEnv(o.Env); err != nil {
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
		{"DefaultTimeout", &o.DefaultTimeout, shellcap.DefaultTimeout},
		{"MaxTimeout", &o.MaxTimeout, shellcap.DefaultMaxTimeout},
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
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = shellcap.DefaultMaxOutputBytes
	}
	if o.MaxOutputChars == 0 {
		o.MaxOutputChars = shellcap.DefaultMaxOutputChars
	}
	return o, nil
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
