package container

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shellcap/shellcap/internal/safefs"
)

// ErrForbiddenArg is wrapped by the *ArgError [CheckExtraArgs] returns.
var ErrForbiddenArg = errors.New("container: argument not allowed")

// ArgError names an extra run argument that was refused and why.
type ArgError struct {
	Arg    string // the argument as given, e.g. "-itv/a:/b"
	Flag   string // the flag it was read as, e.g. "-v" or "--network"
	Reason string
}

// Error names the argument, the flag and the reason.
func (e *ArgError) Error() string {
	if e.Flag != "" && e.Flag != e.Arg {
		return fmt.Sprintf("extra argument %q (%s) is not allowed: %s", e.Arg, e.Flag, e.Reason)
	}
	return fmt.Sprintf("extra argument %q is not allowed: %s", e.Arg, e.Reason)
}

// Unwrap returns ErrForbiddenArg.
func (e *ArgError) Unwrap() error { return ErrForbiddenArg }

// labelKey labels each container with the executor that made it.
const labelKey = "io.shellcap.executor"

const (
	weakens  = "it weakens the container's isolation"
	ours     = "the executor sets it; use the matching Options field"
	noSecret = "it would put values in argv; use Options.Env"
)

// forbidden names the long flags refused outright, with the reason.
var forbidden = map[string]string{
	"privileged": weakens, "cap-add": weakens, "security-opt": weakens,
	"network": weakens, "net": weakens, "network-alias": weakens,
	"volume": weakens, "mount": weakens, "volumes-from": weakens,
	"device": weakens, "device-cgroup-rule": weakens, "device-read-bps": weakens,
	"pid": weakens, "ipc": weakens, "uts": weakens, "userns": weakens,
	"cgroupns": weakens, "cgroup-parent": weakens, "cgroups": weakens,
	"user": weakens, "group-add": weakens, "runtime": weakens,
	"gpus": weakens, "sysctl": weakens, "add-host": weakens, "dns": weakens,
	"publish": weakens, "publish-all": weakens, "expose": weakens,
	"read-only": weakens, "read-only-tmpfs": weakens, "tmpfs": weakens,
	"rootfs": weakens, "image-volume": weakens, "systemd": weakens,
	"seccomp-policy": weakens, "hooks-dir": weakens, "oom-kill-disable": weakens,
	"init-path": weakens, "personality": weakens, "secret": weakens,
	"http-proxy": weakens, "pod": weakens, "mac-address": weakens, "ip": weakens,
	"ip6": weakens, "link": weakens, "isolation": weakens, "userns-remap": weakens,
	"env-file": noSecret, "env": noSecret, "env-host": weakens, "env-merge": noSecret,
	"memory": ours, "memory-swap": ours, "memory-reservation": ours, "kernel-memory": ours,
	"pids-limit": ours, "ulimit": ours, "workdir": ours, "entrypoint": ours,
	"name": ours, "rm": ours, "detach": ours, "interactive": ours, "tty": ours,
	"attach": ours, "cap-drop": ours, "restart": ours, "replace": ours,
	// Runtime annotations can switch off protections (crun's
	// run.oci.keep_original_groups keeps the host's groups); a negative
	// OOM score shields the container at the host's expense.
	"annotation": weakens, "oom-score-adj": weakens, "log-opt": weakens,
}

// allowed lists the long flags permitted in ExtraArgs and whether each
// takes a value. Everything else is refused.
var allowed = map[string]bool{
	"cpus": true, "cpu-shares": true, "cpu-period": true, "cpu-quota": true,
	"cpuset-cpus": true, "cpuset-mems": true, "blkio-weight": true,
	"label": true, "hostname": true, "shm-size": true,
	"stop-timeout": true, "stop-signal": true, "tz": true, "init": false,
}

// shortFlags maps one-letter flags to their long names.
var shortFlags = map[byte]string{
	'v': "volume", 'u': "user", 'e': "env", 'p': "publish", 'P': "publish-all",
	'm': "memory", 'w': "workdir", 'd': "detach", 'i': "interactive",
	't': "tty", 'a': "attach", 'c': "cpu-shares", 'l': "label", 'h': "hostname",
}

// CheckExtraArgs reports the first argument of args that may not be added
// to a `run` command. Only flags on a short allowlist pass (--cpus,
// --cpu-shares/-c, --cpu-period, --cpu-quota, --cpuset-cpus, --cpuset-mems,
// --blkio-weight, --label/-l, --hostname/-h, --shm-size, --stop-timeout,
// --stop-signal, --tz, --init); flags that weaken isolation (--privileged,
// --cap-add, --security-opt, --network, -v, --mount, --device, --pid,
// --userns, -u, --annotation, ...) or override the executor's own settings (--memory, --workdir,
// --env-file, ...) are refused with their reason, whether written
// "--flag value", "--flag=value", "-v/a:/b", "-v=/a:/b" or inside a cluster
// of short flags such as "-itv". Positional arguments and "--" are refused
// too: they would become the image or the command. The error is an
// *ArgError wrapping ErrForbiddenArg.
func CheckExtraArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			return &ArgError{Arg: a, Reason: "only options are allowed; a positional argument would become the image or the command"}
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			takesValue, err := checkLong(a, name)
			if err != nil {
				return err
			}
			if takesValue && !hasValue {
				if i+1 >= len(args) {
					return &ArgError{Arg: a, Flag: "--" + name, Reason: "it needs a value"}
				}
				i++
			}
		default:
			consumed, err := checkShortCluster(a)
			if err != nil {
				return err
			}
			if consumed {
				if i+1 >= len(args) {
					return &ArgError{Arg: a, Reason: "its last flag needs a value"}
				}
				i++
			}
		}
	}
	return nil
}

// checkLong checks one long flag by name and says whether it takes a value.
func checkLong(arg, name string) (takesValue bool, err error) {
	if reason, ok := forbidden[name]; ok {
		return false, &ArgError{Arg: arg, Flag: "--" + name, Reason: reason}
	}
	takes, ok := allowed[name]
	if !ok {
		return false, &ArgError{Arg: arg, Flag: "--" + name, Reason: "it is not on the list of allowed extra arguments"}
	}
	return takes, nil
}

// checkShortCluster checks "-abc", "-mVALUE", "-m=VALUE" and says whether
// the last flag takes its value from the next argument. When several flags
// of a cluster are refused, the error names one that weakens isolation if
// there is one, so "-itv" is reported as -v rather than as -i.
func checkShortCluster(arg string) (needsNext bool, err error) {
	body := arg[1:]
	var first *ArgError
	for j := 0; j < len(body); j++ {
		c := body[j]
		long, ok := shortFlags[c]
		var takesValue bool
		var cerr error
		if !ok {
			cerr = &ArgError{Arg: arg, Reason: "it is not on the list of allowed extra arguments"}
		} else {
			takesValue, cerr = checkLong(arg, long)
		}
		if cerr != nil {
			ae := cerr.(*ArgError)
			ae.Flag = "-" + string(c)
			if ae.Reason == weakens {
				return false, ae
			}
			if first == nil {
				first = ae
			}
			continue
		}
		if takesValue {
			needsNext = j == len(body)-1 // the rest, if any, is its value
			break
		}
	}
	if first != nil {
		return false, first
	}
	return needsNext, nil
}

// runArgs renders the isolation flags shared by `run` in both modes.
func (e *Executor) runArgs(name string) []string {
	o := &e.opts
	args := []string{
		"--name", name,
		"--network", "none",
		"--user", "65534:65534",
		"--read-only",
		"--cap-drop", "ALL",
		"--security-opt", "no-new-privileges",
		"--tmpfs", "/tmp:rw,nosuid,nodev,size=" + strconv.FormatInt(o.TmpfsSize, 10),
		"--memory", strconv.FormatInt(o.Memory, 10),
		"--pids-limit", strconv.Itoa(o.Pids),
		"--ulimit", fmt.Sprintf("nofile=%d:%d", o.NoFile, o.NoFile),
		"--ulimit", fmt.Sprintf("nproc=%d:%d", o.NProc, o.NProc),
		"--label", labelKey + "=" + e.id,
	}
	args = append(args, e.ulimits...)
	if !o.NoWorkspace {
		mode := "ro"
		if o.WritableWorkspace {
			mode = "rw"
		}
		args = append(args, "--volume", o.Workspace+":"+WorkspaceMount+":"+mode)
		if stateDirExists(o.Workspace) {
			// Job logs, stdin FIFOs and kept output are the host's, not the
			// model's: an empty read-only tmpfs covers them. Podman copies
			// what is beneath into a tmpfs unless told not to.
			cover := WorkspaceMount + "/" + safefs.StateDirName + ":ro,size=4k,mode=0555"
			if engineKind(o.Engine) == "podman" {
				cover += ",notmpcopyup"
			}
			args = append(args, "--tmpfs", cover)
		}
	}
	return append(args, o.ExtraArgs...)
}

// image renders what names the root filesystem: the image, or podman's
// --rootfs DIR. It must come after every other option: podman reads the
// first positional argument after --rootfs as the directory.
func (e *Executor) image() []string {
	if e.opts.RootFS != "" {
		return []string{"--rootfs", e.opts.RootFS}
	}
	return []string{e.opts.Image}
}

// stateDirExists reports whether the workspace holds the Shell's state
// directory (.shellcap) as a real directory, a mount point the container
// can cover.
func stateDirExists(workspace string) bool {
	fi, err := os.Lstat(filepath.Join(workspace, safefs.StateDirName))
	return err == nil && fi.IsDir()
}
