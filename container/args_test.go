package container

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
)

func TestCheckExtraArgsRejects(t *testing.T) {
	cases := []struct {
		args []string
		flag string // the flag the error must name
	}{
		{[]string{"--privileged"}, "--privileged"},
		{[]string{"--privileged=true"}, "--privileged"},
		{[]string{"--cap-add", "SYS_ADMIN"}, "--cap-add"},
		{[]string{"--cap-add=ALL"}, "--cap-add"},
		{[]string{"--security-opt", "seccomp=unconfined"}, "--security-opt"},
		{[]string{"--security-opt=apparmor=unconfined"}, "--security-opt"},
		{[]string{"--network", "host"}, "--network"},
		{[]string{"--network=host"}, "--network"},
		{[]string{"--net", "host"}, "--net"},
		{[]string{"--net=host"}, "--net"},
		{[]string{"-v", "/:/host"}, "-v"},
		{[]string{"-v/a:/b"}, "-v"},
		{[]string{"-v=/a:/b"}, "-v"},
		{[]string{"--volume", "/a:/b"}, "--volume"},
		{[]string{"--volume=/a:/b"}, "--volume"},
		{[]string{"--mount", "type=bind,src=/,dst=/h"}, "--mount"},
		{[]string{"--mount=type=bind,src=/,dst=/h"}, "--mount"},
		{[]string{"--device", "/dev/sda"}, "--device"},
		{[]string{"--device=/dev/kvm"}, "--device"},
		{[]string{"--device-cgroup-rule=a *:* rwm"}, "--device-cgroup-rule"},
		{[]string{"--pid", "host"}, "--pid"},
		{[]string{"--pid=host"}, "--pid"},
		{[]string{"--ipc=host"}, "--ipc"},
		{[]string{"--uts=host"}, "--uts"},
		{[]string{"--userns=host"}, "--userns"},
		{[]string{"--cgroupns=host"}, "--cgroupns"},
		{[]string{"-u", "0"}, "-u"},
		{[]string{"-u0"}, "-u"},
		{[]string{"-u=root"}, "-u"},
		{[]string{"--user", "root"}, "--user"},
		{[]string{"--user=0:0"}, "--user"},
		{[]string{"--volumes-from", "other"}, "--volumes-from"},
		{[]string{"--volumes-from=other"}, "--volumes-from"},
		{[]string{"--runtime", "runc"}, "--runtime"},
		{[]string{"--runtime=crun"}, "--runtime"},
		{[]string{"--env-file", "/etc/shadow"}, "--env-file"},
		{[]string{"--env-file=/root/.env"}, "--env-file"},
		{[]string{"-e", "A=B"}, "-e"},
		{[]string{"--env=A=B"}, "--env"},
		{[]string{"--gpus", "all"}, "--gpus"},
		{[]string{"--gpus=all"}, "--gpus"},
		{[]string{"--group-add", "0"}, "--group-add"},
		{[]string{"--group-add=disk"}, "--group-add"},
		{[]string{"--sysctl", "net.ipv4.ip_forward=1"}, "--sysctl"},
		{[]string{"--cgroup-parent=/"}, "--cgroup-parent"},
		{[]string{"--add-host=evil:1.2.3.4"}, "--add-host"},
		{[]string{"--read-only=false"}, "--read-only"},
		{[]string{"--tmpfs", "/workspace"}, "--tmpfs"},
		{[]string{"-p", "80:80"}, "-p"},
		{[]string{"-P"}, "-P"},
		{[]string{"--memory=0"}, "--memory"},
		{[]string{"-m", "100g"}, "-m"},
		{[]string{"--pids-limit=-1"}, "--pids-limit"},
		{[]string{"--ulimit", "nproc=-1"}, "--ulimit"},
		{[]string{"--workdir=/"}, "--workdir"},
		{[]string{"--entrypoint=/bin/sh"}, "--entrypoint"},
		{[]string{"--rootfs"}, "--rootfs"},
		{[]string{"-itv/a:/b"}, "-v"},
		{[]string{"-itv", "/a:/b"}, "-v"},
		{[]string{"-tu0"}, "-u"},
		{[]string{"-privileged"}, "-p"},
		{[]string{"--init", "--privileged"}, "--privileged"},
		{[]string{"--label", "a=b", "--net=host"}, "--net"},
		{[]string{"--cpus", "1", "-v", "/:/h"}, "-v"},
		{[]string{"--NETWORK=host"}, "--NETWORK"},
		{[]string{"--no-such-flag"}, "--no-such-flag"},
		{[]string{"--annotation", "run.oci.keep_original_groups=1"}, "--annotation"},
		{[]string{"--oom-score-adj=-1000"}, "--oom-score-adj"},
		{[]string{"--log-opt", "path=/etc/cron.d/x"}, "--log-opt"},
		{[]string{"--log-driver=k8s-file"}, "--log-driver"},
		{[]string{"--seccomp-policy=image"}, "--seccomp-policy"},
		{[]string{"--uts", "host"}, "--uts"},
	}
	for _, c := range cases {
		err := CheckExtraArgs(c.args)
		if err == nil {
			t.Errorf("CheckExtraArgs(%q) accepted", c.args)
			continue
		}
		var ae *ArgError
		if !errors.As(err, &ae) || !errors.Is(err, ErrForbiddenArg) {
			t.Errorf("CheckExtraArgs(%q) = %v, want an *ArgError wrapping ErrForbiddenArg", c.args, err)
			continue
		}
		if ae.Flag != c.flag {
			t.Errorf("CheckExtraArgs(%q) named flag %q, want %q (%v)", c.args, ae.Flag, c.flag, err)
		}
		if !strings.Contains(err.Error(), c.flag) {
			t.Errorf("CheckExtraArgs(%q) message %q does not name %s", c.args, err, c.flag)
		}
	}
}

func TestCheckExtraArgsPositional(t *testing.T) {
	for _, args := range [][]string{
		{"alpine"}, {"--"}, {"-"}, {"--init", "busybox"}, {"--cpus"}, {"-c"},
	} {
		if err := CheckExtraArgs(args); !errors.Is(err, ErrForbiddenArg) {
			t.Errorf("CheckExtraArgs(%q) = %v, want ErrForbiddenArg", args, err)
		}
	}
}

func TestCheckExtraArgsAllows(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--cpus", "1.5"},
		{"--cpus=2"},
		{"--init"},
		{"-c", "512"},
		{"-c512"},
		{"-l", "a=b", "--label=c=d"},
		{"--hostname", "sandbox", "--shm-size=16m", "--stop-timeout", "2"},
		{"--cpu-shares", "-5"}, // a value that looks like a flag stays a value
	} {
		if err := CheckExtraArgs(args); err != nil {
			t.Errorf("CheckExtraArgs(%q) = %v, want nil", args, err)
		}
	}
}

func TestNewRejectsExtraArgs(t *testing.T) {
	sh := testShell(t, shellcap.Options{})
	_, err := New(sh, Options{Engine: "sh", Image: "x"})
	if !errors.Is(err, shellcap.ErrInvalidOptions) {
		t.Errorf("Engine sh: %v, want ErrInvalidOptions", err)
	}
	if testing.Short() {
		return
	}
	requirePodman(t)
	_, err = New(sh, Options{Engine: "podman", Image: "x", ExtraArgs: []string{"-itv/a:/b"}})
	var oe *shellcap.OptionError
	if !errors.As(err, &oe) || oe.Option != "ExtraArgs" || !strings.Contains(err.Error(), "-v") {
		t.Errorf("New with -itv/a:/b: %v, want an OptionError for ExtraArgs naming -v", err)
	}
}

func TestNewValidates(t *testing.T) {
	requirePodman(t)
	sh := testShell(t, shellcap.Options{})
	readOnly := testShell(t, shellcap.Options{ReadOnly: true})
	persistCwd := testShell(t, shellcap.Options{PersistCwd: true})
	newlineEnv := testShell(t, shellcap.Options{Env: map[string]string{"MULTI": "a\nb"}})
	bad := []struct {
		sh     *shellcap.Shell
		o      Options
		option string // the OptionError's Option
	}{
		{nil, Options{Engine: "podman", Image: "x"}, "Shell"},
		{sh, Options{Engine: "podman"}, "Image"}, // neither Image nor RootFS
		{sh, Options{Engine: "podman", Image: "x", RootFS: "/"}, "RootFS"},
		{sh, Options{Engine: "podman", Image: "--privileged"}, "Image"},
		{sh, Options{Engine: "podman", Image: "x", Memory: -1}, "Memory"},
		{sh, Options{Engine: "podman", Image: "x", Pids: -1}, "Pids"},
		{sh, Options{Engine: "podman", Image: "x", Mode: 7}, "Mode"},
		{sh, Options{Engine: "podman", Image: "x", ShellPath: "sh"}, "ShellPath"},
		{sh, Options{Engine: "podman", Image: "x", Env: map[string]string{"A B": "x"}}, "Env"},
		{sh, Options{Engine: "podman", Image: "x", Env: map[string]string{"A": "x\ny"}}, "Env"},
		{sh, Options{Engine: "podman", Image: "x", Workspace: "/does/not/exist"}, "Workspace"},
		{sh, Options{Engine: "podman", Image: "x", NoWorkspace: true, Workspace: "/tmp"}, "NoWorkspace"},
		{sh, Options{Engine: "podman", Image: "x", EngineArgs: []string{"run"}}, "EngineArgs"},
		{sh, Options{Engine: "podman", Image: "x", DefaultTimeout: time.Hour}, "DefaultTimeout"},
		{readOnly, Options{Engine: "podman", Image: "x", WritableWorkspace: true}, "WritableWorkspace"},
		{persistCwd, Options{Engine: "podman", Image: "x"}, "PersistCwd"},
		{newlineEnv, Options{Engine: "podman", Image: "x"}, "Env"},
	}
	for _, c := range bad {
		e, err := New(c.sh, c.o)
		var oe *shellcap.OptionError
		if !errors.Is(err, shellcap.ErrInvalidOptions) || !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("New(%+v) = %v, want an OptionError for %s", c.o, err, c.option)
		}
		if e != nil {
			e.Close()
		}
	}
	// The Shell's variable can be overridden; a read-only Shell is fine
	// with a read-only mount.
	for _, c := range []struct {
		sh *shellcap.Shell
		o  Options
	}{
		{newlineEnv, Options{Engine: "podman", Image: "x", Env: map[string]string{"MULTI": "one line"}}},
		{readOnly, Options{Engine: "podman", Image: "x"}},
	} {
		e, err := New(c.sh, c.o)
		if err != nil {
			t.Errorf("New(%+v) = %v, want success", c.o, err)
			continue
		}
		e.Close()
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []Mode{Stateless, Persistent} {
		if got, err := ParseMode(m.String()); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := ParseMode(""); err != nil || got != Stateless {
		t.Errorf("ParseMode(\"\") = %v, %v, want Stateless", got, err)
	}
	if _, err := ParseMode("Persistent"); !errors.Is(err, shellcap.ErrInvalidOptions) {
		t.Errorf("ParseMode(Persistent) = %v, want ErrInvalidOptions", err)
	}
}
