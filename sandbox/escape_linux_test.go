package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// fixture is a host-side world for escape attempts: a workspace holding a
// git repository and agent config, a directory outside every allowed root,
// a fake home, a host /tmp directory, a TCP and an abstract unix listener
// that count connections, and a host process.
type fixture struct {
	ws, outside, home, hostTmp string
	secret                     string
	port                       int
	abstract                   string
	unixPath                   string
	accepted                   atomic.Int64
	hostPID                    int
	probe                      string
	snap                       map[string]string
}

const secretText = "top-secret-token-7d1f"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	// hostTmp is in the host /tmp itself, not $TMPDIR (which the
	// unprivileged run points elsewhere).
	f := &fixture{ws: t.TempDir(), hostTmp: tempDir(t, "/tmp", "shellcap-host-tmp-")}
	var err error
	if f.outside, err = os.MkdirTemp("/var/tmp", "shellcap-outside-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(f.outside) })
	f.home = filepath.Join(f.outside, "home")
	f.secret = filepath.Join(f.outside, "secret.txt")
	mustWrite(t, f.secret, secretText+"\n", 0o600)
	mustWrite(t, filepath.Join(f.home, ".bashrc"), "# host bashrc\n", 0o644)
	mustWrite(t, filepath.Join(f.hostTmp, "host.txt"), "host tmp file\n", 0o644)

	git := exec.Command("git", "init", "-q", f.ws)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	mustWrite(t, filepath.Join(f.ws, ".git/hooks/pre-push"), "#!/bin/sh\nexit 0\n", 0o755)
	mustWrite(t, filepath.Join(f.ws, ".mcp.json"), "{}\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, ".vscode/settings.json"), "{}\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, ".bashrc"), "# ws bashrc\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, "sub/nested/.git/hooks/post-checkout"), "#!/bin/sh\n", 0o755)
	mustWrite(t, filepath.Join(f.ws, "sub/nested/.git/config"), "[core]\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, "README"), "hello\n", 0o644)
	// Agent, editor and hook-manager configuration, and shellcap's own.
	for _, p := range agentConfigs {
		mustWrite(t, filepath.Join(f.ws, p), "{}\n", 0o644)
	}
	// A repository without a hooks directory, and one whose hooks live in
	// the work tree through core.hooksPath.
	mustWrite(t, filepath.Join(f.ws, "nohooks/.git/config"), "[core]\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, "tools/.git/config"), "[core]\n\thooksPath = myhooks\n", 0o644)
	mustWrite(t, filepath.Join(f.ws, "tools/myhooks/pre-commit"), "#!/bin/sh\n", 0o755)

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.port = ln.Addr().(*net.TCPAddr).Port
	f.abstract = "@shellcap-test-" + strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(f.port)
	al, err := net.Listen("unix", f.abstract)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []net.Listener{ln, al} {
		go func(l net.Listener) {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				f.accepted.Add(1)
				c.Close()
			}
		}(l)
		t.Cleanup(func() { l.Close() })
	}

	host := exec.Command("sleep", "600")
	host.Env = []string{"SCTEST_HOST_MARKER=" + secretText}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	f.hostPID = host.Process.Pid
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })

	if f.probe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	// The helper creates missing hooks and info directories.
	for _, repo := range []string{".", "nohooks", "tools", "sub/nested"} {
		for _, d := range []string{"hooks", "info"} {
			os.Mkdir(filepath.Join(f.ws, repo, ".git", d), 0o755)
		}
	}
	f.snap = snapshot(t, f.ws, f.outside, f.hostTmp)
	return f
}

func mustWrite(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// snapshot records every path under the roots with its type, mode and
// content, so a test can tell that nothing changed.
func snapshot(t *testing.T, roots ...string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, root := range roots {
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			v := fi.Mode().String()
			if fi.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				v += " " + string(b)
			} else if fi.Mode()&os.ModeSymlink != 0 {
				l, _ := os.Readlink(p)
				v += " -> " + l
			}
			if names := xattrNames(p); names != "" {
				v += " xattrs " + names
			}
			m[p] = v
			return nil
		})
	}
	return m
}

// xattrNames lists the extended attribute names of p, without following
// a symlink.
func xattrNames(p string) string {
	buf := make([]byte, 4096)
	n, err := unix.Llistxattr(p, buf)
	if err != nil || n <= 0 {
		return ""
	}
	return strings.ReplaceAll(string(buf[:n-1]), "\x00", ",")
}

// untouched reports the first difference between the fixture's snapshot
// and now, ignoring what the sanity scripts may legitimately create.
func (f *fixture) untouched(t *testing.T) {
	t.Helper()
	now := snapshot(t, f.ws, f.outside, f.hostTmp)
	for p, v := range f.snap {
		if now[p] != v {
			t.Errorf("%s changed: was %q, now %q", p, v, now[p])
		}
	}
	for p, v := range now {
		if _, ok := f.snap[p]; !ok && !f.scratch(p) {
			t.Errorf("%s appeared: %q", p, v)
		}
	}
	if _, err := os.Stat("/etc/shellcap-escape"); err == nil {
		os.Remove("/etc/shellcap-escape")
		t.Errorf("/etc/shellcap-escape was created")
	}
	if n := f.accepted.Load(); n != 0 {
		t.Errorf("host listeners accepted %d connections", n)
	}
	// A killed host process stays a zombie until the fixture reaps it, so
	// kill -0 alone would not notice; a seized one shows its tracer.
	status, err := os.ReadFile("/proc/" + strconv.Itoa(f.hostPID) + "/status")
	switch {
	case err != nil:
		t.Errorf("host process %d is gone: %v", f.hostPID, err)
	case strings.Contains(string(status), "\nState:\tZ"):
		t.Errorf("host process %d was killed", f.hostPID)
	case !strings.Contains(string(status), "\nTracerPid:\t0\n"):
		t.Errorf("host process %d is traced", f.hostPID)
	}
}

// scratch reports a new path the workspace-write profile may create: any
// path in the workspace outside git directories and protected names.
func (f *fixture) scratch(p string) bool {
	rel, err := filepath.Rel(f.ws, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".git") || isProtectedName(part) {
			return false
		}
	}
	return true
}

func (f *fixture) config(p Profile) Config {
	return Config{Profile: p, Workspace: f.ws, ExtraReadable: []string{filepath.Dir(f.probe)}}
}

// escape is one attempt: a bash script that exits 0 only if it got through.
type escape struct {
	name   string
	script string
	// want, when set, must appear in the combined output (the errno that
	// proves which layer stopped it).
	want string
}

func (f *fixture) escapes() []escape {
	probe := func(args ...string) string {
		return f.probe + " " + reexec.Marker + " " + testProbe + " " + strings.Join(args, " ")
	}
	eperm := "operation not permitted"
	return append([]escape{
		{name: "write /etc", script: "echo x > /etc/shellcap-escape"},
		{name: "append to $HOME/.bashrc", script: "echo pwned >> " + f.home + "/.bashrc"},
		{name: "write host /tmp file", script: "echo pwned > " + f.hostTmp + "/host.txt"},
		{name: "create in host /tmp dir", script: "echo pwned > " + f.hostTmp + "/new.txt"},
		{name: "truncate outside", script: "truncate -s 0 " + f.secret},
		{name: "chmod outside", script: "chmod 0666 " + f.secret},
		{name: "touch -d outside", script: "touch -d 2001-01-01 " + f.secret},
		{name: "chown outside to self", script: "chown $(id -u):$(id -g) " + f.secret},
		{name: "setxattr outside", script: probe("setxattr", f.secret)},
		{name: "symlink out and write through", script: "ln -sf " + f.secret + " ./link && echo pwned >> ./link"},
		{name: "relative symlink out", script: "ln -sf ../../../../../../../.." + f.secret + " ./rlink && echo pwned >> ./rlink"},
		{name: "hardlink outside file in", script: "ln " + f.secret + " ./hard && echo pwned >> ./hard"},
		{name: "rename outside file in", script: "mv " + f.secret + " ./stolen"},
		{name: "write .git/hooks/pre-commit", script: "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"},
		{name: "overwrite existing hook", script: "echo pwned >> .git/hooks/pre-push"},
		{name: "append .git/config", script: "printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> .git/config"},
		{name: "git config core.hooksPath", script: "git config core.hooksPath /tmp/evil"},
		{name: "replace .git/hooks with symlink", script: "mkdir -p evil && rm -rf .git/hooks; ln -sfn ../evil .git/hooks && test -L .git/hooks"},
		{name: "rename .git/hooks away", script: "mv .git/hooks .git/hooks.old"},
		{name: "rename .git and recreate", script: "mv .git .git-old && mkdir -p .git/hooks && echo pwned > .git/hooks/pre-commit"},
		{name: "nested repo hook", script: "echo pwned > sub/nested/.git/hooks/pre-commit"},
		{name: "rename nested .git", script: "mv sub/nested/.git sub/nested/.git2"},
		{name: "rename parent of nested repo", script: "mv sub sub2"},
		{name: "create hooks dir in repo without one", script: "mkdir -p nohooks/.git/hooks && echo pwned > nohooks/.git/hooks/pre-commit"},
		{name: "write core.hooksPath hook", script: "echo pwned >> tools/myhooks/pre-commit"},
		{name: "write .mcp.json", script: "echo '{\"evil\":1}' > .mcp.json"},
		{name: "replace .mcp.json by rename", script: "echo '{}' > m && mv -f m .mcp.json"},
		{name: "write .vscode/settings.json", script: "echo pwned > .vscode/settings.json"},
		{name: "workspace .bashrc", script: "echo pwned >> .bashrc"},
		{name: "write an agent or hook-manager configuration", script: agentConfigWrites()},
		{name: "replace an agent configuration directory", script: "mv .gemini .gemini-old && mkdir .gemini && echo pwned > .gemini/settings.json"},
		{name: "read outside secret", script: "cat " + f.secret + " || exit 1; exit 0"},
		{name: "list fake home", script: "ls " + f.home},
		{name: "tcp connect 127.0.0.1 via /dev/tcp", script: "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(f.port)},
		{name: "socket AF_INET", script: probe("inet"), want: eperm},
		{name: "socket AF_INET6", script: probe("inet6"), want: eperm},
		{name: "socket UDP", script: probe("udp"), want: eperm},
		{name: "socket MPTCP", script: probe("mptcp"), want: eperm},
		{name: "socket AF_NETLINK", script: probe("netlink"), want: eperm},
		{name: "socket AF_PACKET", script: probe("packet"), want: eperm},
		{name: "socket AF_VSOCK", script: probe("vsock"), want: eperm},
		{name: "connect host abstract unix socket", script: probe("connect-unix", f.abstract)},
		{name: "kill -0 host process", script: "kill -0 " + strconv.Itoa(f.hostPID)},
		{name: "kill -TERM host process", script: "kill -TERM " + strconv.Itoa(f.hostPID)},
		{name: "kill -KILL host process", script: "kill -KILL " + strconv.Itoa(f.hostPID)},
		{name: "ptrace host process", script: probe("ptrace-seize", strconv.Itoa(f.hostPID)), want: eperm},
		{name: "process_vm_readv host process", script: probe("process_vm_readv-pid", strconv.Itoa(f.hostPID)), want: eperm},
		{name: "read host /proc/PID/environ", script: "cat /proc/" + strconv.Itoa(f.hostPID) + "/environ"},
		{name: "read host /proc/PID/cmdline", script: "cat /proc/" + strconv.Itoa(f.hostPID) + "/cmdline"},
		{name: "list host /proc/PID/fd", script: "ls /proc/" + strconv.Itoa(f.hostPID) + "/fd"},
		{name: "list host /proc/PID/root", script: "ls /proc/" + strconv.Itoa(f.hostPID) + "/root/"},
		{name: "host process visible in /proc", script: "test -d /proc/" + strconv.Itoa(f.hostPID)},
		{name: "strace", script: "strace -o /dev/null true"},
		{name: "ptrace", script: probe("ptrace"), want: eperm},
		{name: "process_vm_readv", script: probe("process_vm_readv"), want: eperm},
		{name: "io_uring_setup", script: probe("io_uring"), want: eperm},
		{name: "bpf", script: probe("bpf"), want: eperm},
		{name: "perf_event_open", script: probe("perf_event_open"), want: eperm},
		{name: "userfaultfd", script: probe("userfaultfd"), want: eperm},
		{name: "keyctl", script: probe("keyctl"), want: eperm},
		{name: "add_key", script: probe("add_key"), want: eperm},
		{name: "unshare -Ur", script: "unshare -Ur true"},
		{name: "unshare(CLONE_NEWUSER)", script: probe("unshare-user"), want: eperm},
		{name: "clone(CLONE_NEWUSER)", script: probe("clone-newuser"), want: eperm},
		{name: "clone3", script: probe("clone3"), want: "function not implemented"},
		{name: "setns", script: probe("setns"), want: eperm},
		{name: "mount tmpfs", script: "mkdir -p m; mount -t tmpfs none m"},
		{name: "mount syscall", script: probe("mount", "/tmp"), want: eperm},
		{name: "open_tree", script: probe("open_tree"), want: eperm},
		{name: "umount protected path", script: "umount .git/hooks"},
		{name: "TIOCSTI", script: probe("tiocsti"), want: eperm},
		{name: "TIOCSTI with high bits", script: probe("tiocsti-high-bits"), want: eperm},
		{name: "TIOCLINUX", script: probe("tioclinux"), want: eperm},
	}, f.boundaryEscapes()...)
}

// agentConfigs are the agent, editor and hook-manager configuration
// files the fixture holds.
var agentConfigs = []string{
	".gemini/settings.json", ".zed/settings.json", ".roo/mcp.json", ".kiro/settings/mcp.json",
	".amazonq/mcp.json", "opencode.json", ".continue/config.json", ".aider.conf.yml",
	".windsurf/rules.md", ".devcontainer/devcontainer.json", ".pre-commit-config.yaml", "lefthook.yml",
	"shellcap.yaml", "shellcap.yml", "shellcap.json", "sub/.claude/settings.json",
}

// agentConfigWrites tries every agent configuration and succeeds when any
// write got through.
func agentConfigWrites() string {
	var b strings.Builder
	b.WriteString("ok=1; ")
	for _, p := range agentConfigs {
		b.WriteString("echo pwned >> " + p + " && ok=0; ")
	}
	b.WriteString("exit $ok")
	return b.String()
}

func (f *fixture) escapeNamed(name string) escape {
	for _, e := range f.escapes() {
		if e.name == name {
			return e
		}
	}
	panic("no escape " + name)
}

// TestEscapes runs every escape attempt under each confined profile and
// checks that it failed and that nothing it targeted changed.
func TestEscapes(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
			t.Run(mode+"/"+string(prof), func(t *testing.T) {
				testEscapes(t, mode, prof)
			})
		}
	}
}

// testEscapes runs every escape attempt under prof, started the given way.
func testEscapes(t *testing.T, mode string, prof Profile) {
	for _, e := range newFixture(t).escapes() {
		t.Run(e.name, func(t *testing.T) {
			f := newFixture(t)
			e := f.escapeNamed(e.name)
			o := runVia(t, mode, f.config(prof), e.script, "SCTEST_CHILD=1")
			out := o.stdout + o.stderr
			t.Logf("exit %d: %s", o.code, strings.TrimSpace(out))
			if note := onlyAsRoot[e.name]; note != "" && os.Geteuid() != 0 {
				t.Logf("as uid %d: %s", os.Geteuid(), note)
			}
			if o.code == 0 {
				t.Errorf("escape succeeded: %q\n%s", e.script, out)
			}
			if e.want != "" && !strings.Contains(strings.ToLower(out), e.want) {
				t.Errorf("want %q in output, got %q", e.want, out)
			}
			if strings.Contains(out, secretText) {
				t.Errorf("secret leaked: %q", out)
			}
			f.untouched(t)
		})
	}
}

// TestLeakedDescriptor checks that a descriptor the host leaked (not
// close-on-exec) cannot be used inside, in every profile.
func TestLeakedDescriptor(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	leak, err := os.OpenFile(f.secret, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	fd := int(leak.Fd())
	if _, err := unixFcntlClearCloexec(fd); err != nil {
		t.Fatal(err)
	}
	defer syscall.CloseOnExec(fd)
	for _, prof := range []Profile{WorkspaceWrite, ReadOnly, FullAccess} {
		o := runIn(t, f.config(prof), "echo pwned >&"+strconv.Itoa(fd)+"; "+f.probe+" "+reexec.Marker+" "+testProbe+" write-fd "+strconv.Itoa(fd))
		if o.code == 0 {
			t.Errorf("%s: wrote through leaked fd %d: %s%s", prof, fd, o.stdout, o.stderr)
		}
	}
	syscall.CloseOnExec(fd)
	f.untouched(t)
}

// TestUnixPathSocket checks that host sockets where agents and buses live
// (under /run, as $XDG_RUNTIME_DIR/bus, and under the host /tmp, as
// ssh-agent's $SSH_AUTH_SOCK) are out of reach, and documents the
// pathname-socket gap below Landlock ABI 9: a host socket elsewhere outside
// every allowed root is still reachable.
func TestUnixPathSocket(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	var hidden []string
	runSock := ""
	if dir := hostRunDir(); dir != "" {
		runSock = filepath.Join(dir, "shellcap-test-"+strconv.Itoa(os.Getpid())+".sock")
		hidden = append(hidden, runSock)
	} else {
		t.Logf("no directory under /run is writable by uid %d ($XDG_RUNTIME_DIR unset): not trying a socket there", os.Geteuid())
	}
	hidden = append(hidden, filepath.Join(tempDir(t, "/tmp", "ssh-shellcap-"), "agent.sock"))
	if home := os.Getenv("HOME"); home != "" && unix.Access(home, unix.W_OK) == nil {
		// Like a gpg-agent or rootless container engine socket.
		hidden = append(hidden, filepath.Join(tempDir(t, home, ".shellcap-test-agent-"), "S.agent"))
	} else {
		t.Logf("$HOME %q is not writable by uid %d: not trying a socket there", home, os.Geteuid())
	}
	for _, p := range hidden {
		listenUnix(t, p)
		for _, mode := range startModes {
			o := runVia(t, mode, f.config(WorkspaceWrite), f.probe+" "+reexec.Marker+" "+testProbe+" connect-unix "+p)
			if o.code == 0 {
				t.Errorf("%s: connected to the host socket %s: %s", mode, p, o.stdout)
			}
		}
	}
	if runSock != "" {
		// With the full network too, /run is hidden.
		full := f.config(WorkspaceWrite)
		full.Network = NetworkFull
		for _, mode := range startModes {
			o := runVia(t, mode, full, f.probe+" "+reexec.Marker+" "+testProbe+" connect-unix "+runSock)
			if o.code == 0 {
				t.Errorf("%s: connected to the host socket %s with the full network: %s", mode, runSock, o.stdout)
			}
		}
	}
	sockPath := filepath.Join(f.outside, "host.sock")
	listenUnix(t, sockPath)
	o := runIn(t, f.config(WorkspaceWrite), f.probe+" "+reexec.Marker+" "+testProbe+" connect-unix "+sockPath)
	t.Logf("connect to a host pathname socket outside the roots (owned by uid %d, the sandbox's uid): exit %d %s (Landlock ABI %d; blocked only from ABI 9)", os.Geteuid(), o.code, strings.TrimSpace(o.stdout), Doctor().LandlockABI)
}

// hostRunDir is a directory under /run where this test process may create
// a socket: /run as root, else $XDG_RUNTIME_DIR (/run/user/UID on a
// desktop; the unprivileged run sets it), or "" when there is none.
func hostRunDir() string {
	if os.Geteuid() == 0 {
		return "/run"
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); strings.HasPrefix(d, "/run/") && unix.Access(d, unix.W_OK) == nil {
		return d
	}
	return ""
}

// listenUnix listens on a pathname unix socket, accepting and closing
// connections until the test ends.
func listenUnix(t *testing.T, path string) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
}

// waitGone is a small helper for tests that start background work.
func waitGone(pid int) bool {
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

var _ = bytes.MinRead

// TestMissingHooksDir checks that a repository without a hooks directory
// gets an empty read-only one, so hooks cannot be planted.
func TestMissingHooksDir(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n", 0o644)
	o := runIn(t, Config{Workspace: ws}, "mkdir -p .git/hooks; echo pwned > .git/hooks/pre-commit")
	if o.code == 0 {
		t.Fatal("planted a hook")
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("hook exists")
	}
}

// TestStateDirHidden checks that shellcap's state directory in the
// workspace is empty inside the sandbox: a job's stdin FIFO cannot be
// written (a read-only mount alone would allow that) and logs cannot be
// read.
func TestStateDirHidden(t *testing.T) {
	requireSandbox(t)
	for _, run := range []struct {
		mode string
		prof Profile
	}{{startModes[0], WorkspaceWrite}, {startModes[1], WorkspaceWrite}, {startModes[0], ReadOnly}, {startModes[1], ReadOnly}} {
		mode := run.mode
		t.Run(mode+"/"+string(run.prof), func(t *testing.T) {
			ws := t.TempDir()
			job := filepath.Join(ws, ".shellcap", "jobs", "abc")
			if err := os.MkdirAll(job, 0o700); err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(job, "stdin")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			mustWrite(t, filepath.Join(job, "stdout.log"), secretText, 0o600)
			// Hold the FIFO open for reading, so a writer would not block.
			r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			o := runVia(t, mode, Config{Workspace: ws, Profile: run.prof}, "echo pwned > .shellcap/jobs/abc/stdin; cat .shellcap/jobs/abc/stdout.log; ls -A .shellcap")
			if strings.Contains(o.stdout, secretText) || strings.TrimSpace(o.stdout) != "" {
				t.Errorf("the state directory is visible: %q", o.stdout)
			}
			buf := make([]byte, 64)
			if n, _ := r.Read(buf); n > 0 {
				t.Errorf("a job's stdin got %q from the sandbox", buf[:n])
			}
		})
	}
}

// TestEscapesCalibrated runs the escapes on agent and hook-manager
// configuration with plain bash, unconfined: each must get through there,
// so that its failing in the sandbox means the sandbox stopped it.
func TestEscapesCalibrated(t *testing.T) {
	for _, name := range []string{"write an agent or hook-manager configuration", "replace an agent configuration directory"} {
		f := newFixture(t)
		e := f.escapeNamed(name)
		cmd := exec.Command("/bin/bash", "-c", e.script)
		cmd.Dir = f.ws
		cmd.Env = baseEnv(f.ws)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: unconfined, it did not get through: %v %s", name, err, out)
		}
	}
}
