package sandbox

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
	"syscall"
	"time"
)

// sanityCase is one piece of ordinary work: a bash script, the stdout it
// must print, and environment it needs.
type sanityCase struct {
	name, script, want string
	env                []string
}

func sanityCases() []sanityCase {
	gitEnv := []string{
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	return []sanityCase{
		{"git init add commit", "git init -q . && echo hi > a && git add a && git commit -qm first && git log --oneline | wc -l", "1", gitEnv},
		{"pipes", "seq 1 1000 | grep 7 | wc -l | tr -d ' '", "271", nil},
		{"background jobs and wait", "(sleep 0.2; echo a > bg1) & (echo b > bg2) & wait; cat bg1 bg2 | tr -d '\\n'", "ab", nil},
		{"job control builtins", "sleep 5 & kill %1; wait %1; echo $?", "143", nil},
		{"here-doc and private tmp", "cat <<EOF > /tmp/x\nhello\nEOF\ncat /tmp/x", "hello", nil},
		{"python multiprocessing", "/usr/bin/python3 -c 'import multiprocessing as m\nif __name__==\"__main__\":\n  with m.Pool(2) as p: print(sum(p.map(abs, range(-10, 0))))'", "55", nil},
		{"dev null and urandom", "head -c 16 /dev/urandom > /dev/null && echo ok", "ok", nil},
		{"no network interfaces but lo", "ls /sys/class/net | tr '\\n' ' '", "lo", nil},
	}
}

// TestSanity checks that ordinary work keeps working in the sandbox, both
// ways of starting: a sandbox that breaks it gets switched off.
func TestSanity(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		for _, c := range sanityCases() {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				ws := t.TempDir()
				o := runVia(t, mode, Config{Workspace: ws}, c.script, c.env...)
				if o.code != 0 || strings.TrimSpace(o.stdout) != c.want {
					t.Fatalf("exit %d, stdout %q, want %q; stderr:\n%s", o.code, o.stdout, c.want, o.stderr)
				}
			})
		}
	}
}

// TestGitInProtectedRepo commits in a repository that existed before the
// sandbox started, so its hooks and config are read-only mounts.
func TestGitInProtectedRepo(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	o := runIn(t, Config{Workspace: ws},
		"echo x > f && git add f && git commit -qm c && echo y >> f && git commit -qam d && git checkout -qb topic && git rev-list --count HEAD && git status --short | wc -l",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	if o.code != 0 || o.stdout != "2\n0\n" {
		t.Fatalf("exit %d %q %s", o.code, o.stdout, o.stderr)
	}
}

// TestPrivateTmp checks that the host's /tmp is not visible inside and
// that what the command leaves in /tmp does not reach the host.
func TestPrivateTmp(t *testing.T) {
	requireSandbox(t)
	host, err := os.CreateTemp("/tmp", "shellcap-host-")
	if err != nil {
		t.Fatal(err)
	}
	host.Close()
	defer os.Remove(host.Name())
	ws := t.TempDir()
	o := runIn(t, Config{Workspace: ws}, "test -e "+host.Name()+" && echo visible; echo x > /tmp/shellcap-left-behind; echo done")
	if o.stdout != "done\n" {
		t.Fatalf("host tmp visible or write failed: %q %s", o.stdout, o.stderr)
	}
	if _, err := os.Stat("/tmp/shellcap-left-behind"); err == nil {
		os.Remove("/tmp/shellcap-left-behind")
		t.Fatal("private /tmp write reached the host")
	}
}

// TestSanityGoBuild builds a Go program with the cache in the workspace.
func TestSanityGoBuild(t *testing.T) {
	requireSandbox(t)
	if testing.Short() {
		t.Skip("compiles the runtime")
	}
	if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
		t.Skip("no Go toolchain in /usr/local/go")
	}
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "go.mod"), "module example.com/hello\n\ngo 1.26\n", 0o644)
	mustWrite(t, filepath.Join(ws, "main.go"), "package main\n\nfunc main() { println(\"built\") }\n", 0o644)
	o := runIn(t, Config{Workspace: ws}, "go build -o hello . && ./hello",
		"GOCACHE="+ws+"/.cache/go-build", "GOPATH="+ws+"/.gopath", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0")
	if o.code != 0 || !strings.Contains(o.stderr, "built") {
		t.Fatalf("exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestReadOnlyProfile checks that the read-only profile reads the
// workspace, writes only private tmp, and cannot write the workspace.
func TestReadOnlyProfile(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "data"), "payload\n", 0o644)
	o := runIn(t, Config{Profile: ReadOnly, Workspace: ws}, "cat data && echo t > /tmp/t && cat /tmp/t && echo x > /dev/null && ! echo x > new")
	if o.code != 0 || o.stdout != "payload\nt\n" {
		t.Fatalf("exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "new")); err == nil {
		t.Fatal("read-only profile created a file in the workspace")
	}
}

// TestReadEverything: the opt-in lets a read-only command read a file
// outside every root, and still write nothing outside /tmp, in both ways
// of starting; without it the same read fails.
func TestReadEverything(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	for _, mode := range startModes {
		cfg := f.config(ReadOnly)
		o := runVia(t, mode, cfg, "cat "+f.secret)
		if o.code == 0 {
			t.Fatalf("%s: read %s without ReadEverything", mode, f.secret)
		}
		cfg.ReadEverything = true
		o = runVia(t, mode, cfg, "cat "+f.secret+" && ! echo x >> "+f.secret+" && ! echo x > new")
		if o.code != 0 || !strings.Contains(o.stdout, secretText) {
			t.Fatalf("%s: exit %d %q %s", mode, o.code, o.stdout, o.stderr)
		}
		f.untouched(t)
	}
}

// TestNetworkFull checks that the full network keeps host TCP, still
// denies AF_VSOCK and keeps the filesystem confinement.
func TestNetworkFull(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	cfg := f.config(WorkspaceWrite)
	cfg.Network = NetworkFull
	o := runIn(t, cfg, "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(f.port)+" && echo connected")
	if o.code != 0 || f.accepted.Load() != 1 {
		t.Fatalf("connect with full network: exit %d %s%s", o.code, o.stdout, o.stderr)
	}
	f.accepted.Store(0)
	o = runIn(t, cfg, f.probe+" "+reexec.Marker+" "+testProbe+" vsock")
	if o.code == 0 || !strings.Contains(o.stdout, "operation not permitted") {
		t.Fatalf("AF_VSOCK with full network: exit %d %s", o.code, o.stdout)
	}
	o = runIn(t, cfg, "echo x > /etc/shellcap-escape")
	if o.code == 0 {
		t.Fatal("wrote /etc with full network")
	}
	f.untouched(t)
}

// TestFullAccess checks that full access runs without confinement but
// with a new session and only descriptors 0-2.
func TestFullAccess(t *testing.T) {
	ws := t.TempDir()
	other := t.TempDir()
	cmd := exec.Command("/bin/bash", "-c", "echo x > "+other+"/f && ls /proc/self/fd | wc -l && ps -o sid= -p $$ | tr -d ' '; echo $$")
	cmd.Dir = ws
	rep, err := wrapCmd(cmd, Config{Profile: FullAccess, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	closeExtra(cmd)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(out))
	// ls sees 0, 1, 2 and its own directory descriptor.
	if len(lines) != 3 || lines[0] != "4" || lines[1] != lines[2] {
		t.Fatalf("fds/session: %q", out)
	}
	if _, err := os.Stat(filepath.Join(other, "f")); err != nil {
		t.Fatal("full access could not write outside the workspace")
	}
	if rep.Has(LayerLandlock) || !rep.Has(LayerCloseFDs) || !rep.Has(LayerSession) || rep.Network != NetworkFull {
		t.Fatalf("report: %+v", rep)
	}
}

// TestDegradedLandlock simulates a machine without Landlock.
func TestDegradedLandlock(t *testing.T) {
	requireSandbox(t)
	probeHook = func(c *Capabilities) { c.LandlockABI = 0 }
	defer func() { probeHook = nil }()
	ws := t.TempDir()
	cmd := exec.Command("/bin/bash", "-c", "true")
	cmd.Dir = ws
	_, err := wrapCmd(cmd, Config{Workspace: ws})
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "landlock") {
		t.Fatalf("want a refusal naming landlock, got %v", err)
	}
	if cmd.Path != "/bin/bash" || len(cmd.ExtraFiles) != 0 {
		t.Fatal("a refused Wrap changed the command")
	}
	rep, err := wrapCmd(cmd, Config{Workspace: ws, AllowDegraded: true})
	if err != nil {
		t.Fatal(err)
	}
	closeExtra(cmd)
	if rep.Has(LayerLandlock) || rep.LandlockABI != 0 || len(rep.Downgrades) == 0 || rep.Downgrades[0].Layer != LayerLandlock {
		t.Fatalf("report: %+v", rep)
	}
	if !strings.Contains(rep.Text(), "downgraded: landlock") || !strings.Contains(rep.Text(), "NOT enforced") {
		t.Fatalf("text:\n%s", rep.Text())
	}
	if _, err := NewLauncher(Config{Workspace: ws}); !errors.Is(err, ErrDegraded) {
		t.Fatalf("NewLauncher: want a refusal, got %v", err)
	}
	// The remaining layers still hold: read-only mounts stop writes.
	for _, mode := range startModes {
		o := runVia(t, mode, Config{Workspace: ws, AllowDegraded: true}, "echo ok > ok; echo x > /etc/shellcap-escape")
		if o.code == 0 || !strings.Contains(o.stderr, "Read-only") {
			t.Fatalf("%s: exit %d %s", mode, o.code, o.stderr)
		}
		if _, err := os.Stat("/etc/shellcap-escape"); err == nil {
			os.Remove("/etc/shellcap-escape")
			t.Fatalf("%s: wrote /etc", mode)
		}
	}
}

// TestDegradedUserNamespaces simulates a machine without user namespaces:
// refusal by default; with AllowDegraded, Landlock and seccomp still hold.
func TestDegradedUserNamespaces(t *testing.T) {
	requireSandbox(t)
	probeHook = func(c *Capabilities) { c.UserNamespaces, c.UserNamespacesError = false, "simulated" }
	defer func() { probeHook = nil }()
	ws := t.TempDir()
	cmd := exec.Command("/bin/bash", "-c", "true")
	_, err := wrapCmd(cmd, Config{Workspace: ws})
	if !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "namespaces") || !strings.Contains(err.Error(), "protected-paths") {
		t.Fatalf("want a refusal naming namespaces and protected paths, got %v", err)
	}
	if _, err := NewLauncher(Config{Workspace: ws}); !errors.Is(err, ErrDegraded) {
		t.Fatalf("NewLauncher: want a refusal, got %v", err)
	}
	cfg := Config{Workspace: ws, AllowDegraded: true}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, mode := range startModes {
		o := runVia(t, mode, cfg, "rm -f ok; echo ok > ok && cat ok; echo x > /etc/shellcap-escape || echo denied")
		if o.code != 0 || o.stdout != "ok\ndenied\n" {
			t.Fatalf("%s: exit %d %q %s", mode, o.code, o.stdout, o.stderr)
		}
		o = runVia(t, mode, cfg, "exec 3<>/dev/tcp/127.0.0.1/"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
		if o.code == 0 {
			t.Fatalf("%s: TCP connect without namespaces succeeded", mode)
		}
	}
}

func TestWrapRejects(t *testing.T) {
	ws := t.TempDir()
	cmd := exec.Command("/bin/true")
	if _, err := wrapCmd(cmd, Config{Workspace: ws, Network: "wifi"}); err == nil {
		t.Fatal("unknown network accepted")
	}
	if _, err := wrapCmd(cmd, Config{Workspace: ws, Profile: "yolo"}); err == nil {
		t.Fatal("unknown profile accepted")
	}
	if _, err := wrapCmd(cmd, Config{Workspace: filepath.Join(ws, "missing")}); err == nil {
		t.Fatal("missing workspace accepted")
	}
	cmd.ExtraFiles = []*os.File{os.Stdin}
	if _, err := wrapCmd(cmd, Config{Workspace: ws}); err == nil {
		t.Fatal("ExtraFiles accepted")
	}
}

func TestReportJSON(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	cmd := exec.Command("/bin/true")
	rep, err := wrapCmd(cmd, Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	closeExtra(cmd)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{LayerNamespaces, LayerMounts, LayerProtected, LayerCapDrop, LayerNoNewPrivs, LayerLandlock, LayerSeccomp, LayerCloseFDs} {
		if !back.Has(l) {
			t.Errorf("layer %s missing from %s", l, b)
		}
	}
	if back.LandlockABI == 0 || len(back.Downgrades) != 0 {
		t.Errorf("report %s", b)
	}
	t.Log(rep.Text())
}

func TestDoctor(t *testing.T) {
	c := Doctor()
	if c.OS != "linux" || c.Text() == "" {
		t.Fatalf("%+v", c)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Fatal(err)
	}
}

// TestNoSurvivors checks that processes the command leaves behind (setsid,
// nohup, double fork) die with it: the pid namespace ends with its init.
func TestNoSurvivors(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	o := runIn(t, Config{Workspace: ws}, "setsid nohup sleep 31337 >/dev/null 2>&1 & (sleep 31337 &) ; sleep 0.1; echo started")
	if o.code != 0 {
		t.Fatalf("exit %d %s", o.code, o.stderr)
	}
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		b, err := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), "31337") {
			pid, _ := strconv.Atoi(de.Name())
			if !waitGone(pid) {
				t.Errorf("process %d survived: %q", pid, b)
			}
		}
	}
}

// TestRlimits checks that the given rlimits hold inside.
func TestRlimits(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	cfg := Config{Workspace: ws, Rlimits: []Rlimit{{Resource: unix.RLIMIT_FSIZE, Soft: 1 << 20, Hard: 1 << 20}}}
	o := runIn(t, cfg, "ulimit -f; head -c 2000000 /dev/zero > big")
	if o.code == 0 || !strings.HasPrefix(o.stdout, "1024") {
		t.Fatalf("exit %d %q %s", o.code, o.stdout, o.stderr)
	}
	if fi, err := os.Stat(filepath.Join(ws, "big")); err != nil || fi.Size() > 1<<20 {
		t.Fatalf("big: %v %v", fi, err)
	}
}

// TestStopSignal checks that SIGTERM sent to the process group of a
// sandboxed command stops it as it would outside the sandbox, whether its
// shell is running a child or a builtin, in both ways of starting.
func TestStopSignal(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	for _, script := range []string{
		"sleep 100; echo survived > survived",
		"while :; do :; done; echo survived > survived",
	} {
		cmd := exec.Command("/bin/bash", "-c", script)
		cmd.Dir = ws
		cmd.Env = baseEnv(ws)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if _, err := wrapCmd(cmd, Config{Workspace: ws}); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		closeExtra(cmd)
		// Usually the command is running by now; a SIGTERM that comes
		// while the sandbox is still being built must stop it too.
		time.Sleep(200 * time.Millisecond)
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%q ignored SIGTERM", script)
		}
		if code := cmd.ProcessState.ExitCode(); code != 143 {
			t.Errorf("%q: exit %d, want 143", script, code)
		}
		if _, err := os.Stat(filepath.Join(ws, "survived")); err == nil {
			t.Errorf("%q: the shell went on after SIGTERM", script)
		}
	}
}

// TestWorkspaceInHome: home directories are hidden, but a workspace inside
// one comes back, writable, with its protected paths.
func TestWorkspaceInHome(t *testing.T) {
	requireSandbox(t)
	home := os.Getenv("HOME")
	if home == "" || unix.Access(home, unix.W_OK) != nil {
		t.Skipf("$HOME %q is not writable here", home)
	}
	ws := tempDir(t, home, ".shellcap-test-ws-")
	mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n", 0o644)
	mustWrite(t, filepath.Join(home, ".shellcap-test-secret"), secretText, 0o600)
	t.Cleanup(func() { os.Remove(filepath.Join(home, ".shellcap-test-secret")) })
	for _, mode := range startModes {
		o := runVia(t, mode, Config{Workspace: ws}, "echo ok > made && cat made; ls -A "+home+" | grep -c shellcap-test-secret; echo x > .git/config || echo protected")
		if o.stdout != "ok\n0\nprotected\n" {
			t.Errorf("%s: exit %d %q %s", mode, o.code, o.stdout, o.stderr)
		}
	}
}
