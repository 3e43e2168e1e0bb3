package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/reexec"
)

// The boundary tests: the private /dev, root-only files, the process
// limit, the private tmpfs sizes and the proxy's bounds. Each attack is
// calibrated against plain bash first (TestBoundaryCalibration): it gets
// through unconfined, so its failure inside is the sandbox's doing.

// boundaryProbe is an entry point of the test binary for the attacks of
// this file; like testProbe, it exits 0 when the attack got through.
const boundaryProbe = "sandbox-test-boundary-probe"

func init() { reexec.Register(boundaryProbe, boundaryAttempt) }

func boundaryAttempt() int {
	if len(os.Args) < 4 {
		fmt.Println("usage: probe ATTEMPT [ARG...]")
		return 2
	}
	if err := boundaryAttack(os.Args[3], os.Args[4:]); err != nil {
		fmt.Printf("blocked: %v\n", err)
		return 1
	}
	fmt.Println("succeeded")
	return 0
}

func boundaryAttack(name string, args []string) error {
	arg := func(i int) string {
		if i < len(args) {
			return args[i]
		}
		return ""
	}
	switch name {
	case "create-mode", "mknod-mode", "openat2-mode", "fchmod", "fchmodat2":
		return setModeAttack(name, arg(0), arg(1))
	case "open":
		// Opening is the attack: a console or serial line that opens
		// can be read.
		fd, err := unix.Open(arg(0), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
		}
		return err
	case "userfaultfd-dev":
		fd, err := unix.Open("/dev/userfaultfd", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		const ioctlNew = 0xAA00 // USERFAULTFD_IOC_NEW
		r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), ioctlNew, unix.O_CLOEXEC)
		if e != 0 {
			return e
		}
		unix.Close(int(r))
		return nil
	case "kvm-create-vm":
		fd, err := unix.Open("/dev/kvm", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		const createVM = 0xAE01 // KVM_CREATE_VM
		r, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), createVM, 0)
		if e != 0 {
			return e
		}
		unix.Close(int(r))
		return nil
	case "spawn":
		// Start N sleeping children, like N `sleep 10 &`, then stop
		// them all.
		n := atoi(arg(0))
		var pids []int
		var ferr error
		for len(pids) < n {
			pid, err := syscall.ForkExec("/bin/sleep", []string{"sleep", "10"}, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
			if err != nil {
				ferr = err
				break
			}
			pids = append(pids, pid)
		}
		for _, pid := range pids {
			unix.Kill(pid, unix.SIGKILL)
			var ws unix.WaitStatus
			unix.Wait4(pid, &ws, 0, nil)
		}
		fmt.Printf("started %d of %d\n", len(pids), n)
		return ferr
	case "hold-conns":
		// Open N connections to ADDR and count those the other side
		// keeps open, sending nothing.
		n, addr := atoi(arg(0)), arg(1)
		var conns []net.Conn
		var derr error
		for range n {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				derr = err
				break
			}
			conns = append(conns, c)
		}
		held := 0
		for _, c := range conns {
			c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			b := make([]byte, 64)
			k, err := c.Read(b)
			if k == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
				held++
			}
		}
		fmt.Printf("held %d of %d (dial error: %v)\n", held, n, derr)
		// Wait while the host counts its descriptors.
		time.Sleep(time.Duration(atoi(arg(2))) * time.Millisecond)
		for _, c := range conns {
			c.Close()
		}
		if held < n {
			return fmt.Errorf("only %d of %d connections held", held, n)
		}
		return nil
	case "idle-tunnel":
		// CONNECT through PROXY to an echo server at DEST, stay silent
		// for WAIT milliseconds, then check that the tunnel still
		// echoes.
		c, err := net.DialTimeout("tcp", arg(0), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", arg(1), arg(1))
		br := bufio.NewReader(c)
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, " 200 ") {
			return fmt.Errorf("CONNECT: %q %v", line, err)
		}
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return err
			}
			if l == "\r\n" {
				break
			}
		}
		time.Sleep(time.Duration(atoi(arg(2))) * time.Millisecond)
		c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte("ping\n")); err != nil {
			return err
		}
		got, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("after the silence: %w", err)
		}
		if got != "ping\n" {
			return fmt.Errorf("echo %q", got)
		}
		return nil
	}
	return fmt.Errorf("unknown attempt %q", name)
}

// boundaryEscapes are the attacks on the sandbox's boundary that join
// the escape suite (TestEscapes, both profiles, both ways of starting,
// as root and as uid 65534).
func (f *fixture) boundaryEscapes() []escape {
	probe := func(args ...string) string {
		return f.probe + " " + reexec.Marker + " " + boundaryProbe + " " + strings.Join(args, " ")
	}
	return []escape{
		{name: "userfaultfd through /dev/userfaultfd", script: probe("userfaultfd-dev")},
		{name: "create a VM through /dev/kvm", script: probe("kvm-create-vm")},
		{name: "read the host console screen /dev/vcs1", script: "head -c1 /dev/vcs1 >/dev/null"},
		{name: "open /dev/console", script: probe("open", "/dev/console")},
		{name: "open /dev/tty1", script: probe("open", "/dev/tty1")},
		{name: "open /dev/ttyS0", script: probe("open", "/dev/ttyS0")},
		{name: "open /dev/kmsg", script: probe("open", "/dev/kmsg")},
		{name: "read /etc/shadow", script: "cat /etc/shadow >/dev/null"},
		{name: "read /etc/gshadow", script: "cat /etc/gshadow >/dev/null"},
		{name: "1000 background sleeps", script: probe("spawn", "1000"), want: "resource temporarily unavailable"},
		{name: "chmod u+s a workspace file", script: "touch s && chmod u+s s && test -u s"},
		{name: "chmod g+s a workspace file", script: "touch g && chmod g+s g && test -g g"},
		{name: "install -m 4755 into the workspace", script: "install -m 4755 /dev/null i && test -u i"},
		{name: "create a setuid file with open", script: probe("create-mode", "o", "4755")},
		{name: "create a setgid file with open", script: probe("create-mode", "og", "2755")},
		{name: "mknod a setuid file", script: probe("mknod-mode", "n", "4755")},
		{name: "openat2 a setuid file", script: probe("openat2-mode", "o2", "4755")},
		{name: "fchmod u+s", script: "touch f1 && " + probe("fchmod", "f1", "4755")},
		{name: "fchmodat2 u+s", script: "touch f2 && " + probe("fchmodat2", "f2", "4755")},
		{name: "private /tmp larger than its limit", script: tmpfsBigger("/tmp", DefaultTmpSize)},
		{name: "private /dev/shm larger than its limit", script: tmpfsBigger("/dev/shm", DefaultTmpSize)},
	}
}

// setModeAttack gives the workspace file path the mode bits mode (octal)
// by one of several system calls, and gets through when the file then
// carries a setuid or setgid bit.
func setModeAttack(how, path, mode string) error {
	m, err := strconv.ParseUint(mode, 8, 32)
	if err != nil {
		return err
	}
	switch how {
	case "create-mode":
		fd, err := unix.Openat(unix.AT_FDCWD, path, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, uint32(m))
		if err != nil {
			return err
		}
		unix.Close(fd)
	case "mknod-mode":
		if err := unix.Mknodat(unix.AT_FDCWD, path, unix.S_IFREG|uint32(m), 0); err != nil {
			return err
		}
	case "openat2-mode":
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY | unix.O_CLOEXEC, Mode: m})
		if err != nil {
			return err
		}
		unix.Close(fd)
	case "fchmod":
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Fchmod(fd, uint32(m)); err != nil {
			return err
		}
	case "fchmodat2":
		p, err := unix.BytePtrFromString(path)
		if err != nil {
			return err
		}
		dirfd := unix.AT_FDCWD
		if _, _, e := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(dirfd), uintptr(unsafe.Pointer(p)), uintptr(m), 0, 0, 0); e != 0 {
			return e
		}
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return err
	}
	if st.Mode&(unix.S_ISUID|unix.S_ISGID) == 0 {
		return fmt.Errorf("mode %#o: no setuid or setgid bit", st.Mode&0o7777)
	}
	return nil
}

// tmpfsBigger is a script that succeeds when the filesystem at dir may
// hold more than limit bytes.
func tmpfsBigger(dir string, limit int64) string {
	return fmt.Sprintf(`[ $(( $(stat -f -c %%b %s) * $(stat -f -c %%S %s) )) -gt %d ]`, dir, dir, limit)
}

// boundaryOnlyAsRoot are the boundary escapes that file permissions
// already stop for any user but root (the devices are root's, mode
// 0600; the shadow files root's and group shadow's).
var boundaryOnlyAsRoot = []string{
	"userfaultfd through /dev/userfaultfd", "create a VM through /dev/kvm", "read the host console screen /dev/vcs1",
	"open /dev/console", "open /dev/tty1", "open /dev/ttyS0", "open /dev/kmsg", "read /etc/shadow", "read /etc/gshadow",
}

func init() {
	for _, name := range boundaryOnlyAsRoot {
		onlyAsRoot[name] = "the target is root's (mode 0600, or group shadow): file permissions stop any other user before the sandbox does"
	}
	// Without user namespaces (a reported downgrade) there is no
	// unprivileged identity, no process limit of the sandbox's own and no
	// private tmpfs; Landlock still keeps every other device closed.
	onlyNamespacesStop["read /etc/shadow"] = "identity"
	onlyNamespacesStop["read /etc/gshadow"] = "identity"
	onlyNamespacesStop["1000 background sleeps"] = "process limit"
	onlyNamespacesStop["private /tmp larger than its limit"] = "private tmpfs"
	onlyNamespacesStop["private /dev/shm larger than its limit"] = "private tmpfs"
}

// TestBoundaryCalibration runs every boundary escape with plain bash,
// unconfined, in a fixture: each must get through there (as root every
// one whose target this machine has; as another user those that file
// permissions do not stop), or the sandbox's refusal proves nothing.
func TestBoundaryCalibration(t *testing.T) {
	f := newFixture(t)
	for _, e := range f.boundaryEscapes() {
		t.Run(e.name, func(t *testing.T) {
			cmd := exec.Command("/bin/bash", "-c", e.script)
			cmd.Dir = f.ws
			cmd.Env = baseEnv(f.ws)
			out, err := cmd.CombinedOutput()
			rootOnly := slices.Contains(boundaryOnlyAsRoot, e.name)
			switch {
			case err == nil:
				t.Logf("unconfined: got through: %s", strings.TrimSpace(string(out)))
			case rootOnly && os.Geteuid() != 0:
				t.Logf("unconfined as uid %d: stopped by file permissions (%v %s): the escape matters as root", os.Geteuid(), err, strings.TrimSpace(string(out)))
			case missingTarget(e.script):
				t.Logf("this machine has no target for it: %s", strings.TrimSpace(string(out)))
			default:
				t.Errorf("unconfined, the attack fails too, so it proves nothing inside: %v\n%s", err, out)
			}
		})
	}
}

// missingTarget reports whether a device or file a script attacks is
// absent from this machine.
func missingTarget(script string) bool {
	for _, w := range strings.Fields(script) {
		if strings.HasPrefix(w, "/dev/") || strings.HasPrefix(w, "/etc/") {
			if _, err := os.Stat(w); errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
	}
	for _, dev := range []string{"/dev/userfaultfd", "/dev/kvm"} {
		if strings.Contains(script, strings.TrimPrefix(dev, "/dev/")+"-") {
			if _, err := os.Stat(dev); errors.Is(err, fs.ErrNotExist) {
				return true
			}
		}
	}
	return false
}

// TestPrivateDev checks that /dev inside holds exactly the documented
// entries, and that no host device node outside them opens inside, each
// one first opened unconfined by this test.
func TestPrivateDev(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	var reachable []string
	filepath.WalkDir("/dev", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&(fs.ModeDevice|fs.ModeCharDevice) == 0 {
			return nil
		}
		if slices.Contains(devNodes, strings.TrimPrefix(p, "/dev/")) || strings.HasPrefix(p, "/dev/pts/") || p == "/dev/ptmx" {
			return nil
		}
		if boundaryAttack("open", []string{p}) == nil {
			reachable = append(reachable, p)
		}
		return nil
	})
	t.Logf("host device nodes outside the private set that uid %d opens unconfined: %d", os.Geteuid(), len(reachable))
	script := "ls -A /dev; for d in " + strings.Join(reachable, " ") + "; do " +
		f.probe + " " + reexec.Marker + " " + boundaryProbe + " open $d >/dev/null && echo OPENED $d; done; true"
	want := devEntries()
	slices.Sort(want)
	for _, mode := range startModes {
		for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
			o := runVia(t, mode, f.config(prof), script)
			lines := strings.Fields(o.stdout)
			var names, opened []string
			for i := 0; i < len(lines); i++ {
				if lines[i] == "OPENED" && i+1 < len(lines) {
					opened = append(opened, lines[i+1])
					i++
					continue
				}
				names = append(names, lines[i])
			}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Errorf("%s/%s: /dev holds %v, want %v", mode, prof, names, want)
			}
			if len(opened) > 0 {
				t.Errorf("%s/%s: host devices open inside: %v", mode, prof, opened)
			}
		}
	}
	// What stays must still work: a terminal of its own, the null
	// device, randomness, the descriptor links.
	o := runIn(t, f.config(WorkspaceWrite), `python3 -c 'import os,pty; m,s=pty.openpty(); print(os.ttyname(s))' && head -c 8 /dev/urandom | wc -c && echo x > /dev/null && cat /dev/stdin </dev/null && readlink /dev/fd`)
	if o.code != 0 || !strings.Contains(o.stdout, "/dev/pts/0") || !strings.Contains(o.stdout, "/proc/self/fd") {
		t.Errorf("the private /dev is unusable: exit %d %q %s", o.code, o.stdout, o.stderr)
	}
}

// TestRootOnlyFiles checks, as root, that a file only root may read,
// outside the granted roots, stays unreadable inside however it is
// named: the unprivileged identity covers every such file, not a list.
func TestRootOnlyFiles(t *testing.T) {
	requireSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("a file only root may read is unreadable to this uid anyway")
	}
	f := newFixture(t)
	planted := filepath.Join("/etc", "shellcap-root-only-"+strconv.Itoa(os.Getpid()))
	mustWrite(t, planted, secretText+"\n", 0o600)
	t.Cleanup(func() { os.Remove(planted) })
	group := planted + "-group"
	mustWrite(t, group, secretText+"\n", 0o040) // readable by group root only
	t.Cleanup(func() { os.Remove(group) })
	script := "cat " + planted + " " + group
	if out, err := exec.Command("/bin/bash", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("unconfined root cannot read them: %v %s", err, out)
	}
	for _, mode := range startModes {
		for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
			o := runVia(t, mode, f.config(prof), script+"; id -u")
			if strings.Contains(o.stdout, secretText) {
				t.Errorf("%s/%s: read a root-only file: %q", mode, prof, o.stdout)
			}
			if strings.TrimSpace(o.stdout) != "0" {
				t.Errorf("%s/%s: the command is not root inside: %q", mode, prof, o.stdout)
			}
		}
	}
}

// TestWorkspaceOwnership checks that what a command creates in the
// workspace belongs to the host's user (root for a root host, through the
// idmapped workspace), that it may change what the host's user owns
// there, and that the report says who the command is.
func TestWorkspaceOwnership(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) {
			ws := t.TempDir()
			mustWrite(t, filepath.Join(ws, "mine"), "host\n", 0o600)
			o := runVia(t, mode, Config{Workspace: ws}, "cat mine && echo more >> mine && mkdir -p d && echo x > d/new && chmod 0640 d/new")
			if o.code != 0 {
				t.Fatalf("exit %d %s%s", o.code, o.stdout, o.stderr)
			}
			for _, p := range []string{"mine", "d", "d/new"} {
				var st unix.Stat_t
				must(t, unix.Stat(filepath.Join(ws, p), &st))
				if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
					t.Errorf("%s belongs to %d:%d on the host, want %d:%d", p, st.Uid, st.Gid, os.Geteuid(), os.Getegid())
				}
			}
		})
	}
	rep := wrapReport(t, Config{Workspace: t.TempDir()})
	switch {
	case os.Geteuid() == 0 && (!rep.Has(LayerIdentity) || !strings.Contains(rep.Text(), strconv.Itoa(sandboxHostID))):
		t.Errorf("a root host's report does not name the unprivileged identity:\n%s", rep.Text())
	case os.Geteuid() != 0 && !strings.Contains(rep.Text(), "uid "+strconv.Itoa(os.Geteuid())):
		t.Errorf("the report does not name the host's uid:\n%s", rep.Text())
	}
}

// wrapReport wraps a command that is never started and returns the
// report.
func wrapReport(t *testing.T, cfg Config) *report {
	t.Helper()
	cmd := exec.Command("/bin/true")
	cmd.Dir = cfg.Workspace
	rep, err := wrapCmd(cmd, cfg)
	if err != nil {
		t.Fatal(err)
	}
	closeExtra(cmd)
	return rep
}

// TestProcessLimit checks that the default limit stops 1000 background
// processes with EAGAIN and is reported, that a configured one is
// honoured, and that lifting it lets them all start: the limit, not
// something else, is what stops them.
func TestProcessLimit(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	spawn := func(n int) string {
		return f.probe + " " + reexec.Marker + " " + boundaryProbe + " spawn " + strconv.Itoa(n)
	}
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) {
			o := runVia(t, mode, f.config(WorkspaceWrite), spawn(1000))
			if o.code == 0 || !strings.Contains(o.stdout, "resource temporarily unavailable") {
				t.Errorf("default limit: exit %d %q", o.code, o.stdout)
			}
			cfg := f.config(WorkspaceWrite)
			cfg.ProcessLimit = 64
			o = runVia(t, mode, cfg, "ulimit -u; "+spawn(100))
			if o.code == 0 || !strings.HasPrefix(o.stdout, "64\n") {
				t.Errorf("limit 64: exit %d %q", o.code, o.stdout)
			}
			cfg.ProcessLimit = -1
			o = runVia(t, mode, cfg, spawn(1000))
			if o.code != 0 {
				t.Errorf("without a limit, 1000 processes did not start: exit %d %q %s", o.code, o.stdout, o.stderr)
			}
		})
	}
	rep := wrapReport(t, f.config(WorkspaceWrite))
	if !rep.Has(LayerProcessLimit) || rep.ProcessLimit != DefaultProcessLimit || !strings.Contains(rep.Text(), "process limit: 512") {
		t.Errorf("the report does not state the process limit:\n%s", rep.Text())
	}
}

// TestTmpSize checks that filling the private /tmp and /dev/shm stops at
// the configured size with ENOSPC, and that the report states the size.
func TestTmpSize(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	cfg := Config{Workspace: ws, TmpSize: 4 << 20}
	for _, mode := range startModes {
		for _, dir := range []string{"/tmp", "/dev/shm"} {
			o := runVia(t, mode, cfg, "head -c 8M /dev/zero > "+dir+"/fill; echo $?; stat -c %s "+dir+"/fill")
			if !strings.Contains(o.stderr, "No space left on device") || !strings.HasPrefix(o.stdout, "1\n") {
				t.Errorf("%s: %s: %q %s", mode, dir, o.stdout, o.stderr)
			}
			if n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(o.stdout, "1\n"))); n > 4<<20 {
				t.Errorf("%s: %s holds %d bytes, more than 4 MiB", mode, dir, n)
			}
		}
	}
	if rep := wrapReport(t, cfg); rep.TmpSize != 4<<20 || !strings.Contains(rep.Text(), "4 MiB") {
		t.Errorf("the report does not state the size:\n%s", rep.Text())
	}
	for _, bad := range []Config{{Workspace: ws, TmpSize: 1}, {Workspace: ws, ProcessLimit: 3}, {Workspace: ws, ProxyMaxConns: -1}} {
		if _, err := wrapCmd(exec.Command("/bin/true"), bad); err == nil {
			t.Errorf("Wrap accepted %+v", bad)
		}
	}
}

// TestProxyBounds checks that one sandbox cannot make the proxy hold more
// connections than its limit (the host process's descriptors stay
// bounded), and that a silent tunnel is closed after the idle timeout,
// while one within it keeps working.
func TestProxyBounds(t *testing.T) {
	requireSandbox(t)
	port, _ := echoServer(t)
	dest := "127.0.0.1:" + strconv.Itoa(port)
	f := newFixture(t)
	probe := func(args ...string) string {
		return f.probe + " " + reexec.Marker + " " + boundaryProbe + " " + strings.Join(args, " ")
	}
	proxyAddr := "127.0.0.1:" + strconv.Itoa(proxyPort)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) {
			cfg := f.config(WorkspaceWrite)
			cfg.Network, cfg.Allow = NetworkAllowlist, []string{dest}
			cfg.ProxyMaxConns, cfg.ProxyIdleTimeout = 8, 700*time.Millisecond
			before := openFDs()
			peak := 0
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					peak = max(peak, openFDs()-before)
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}()
			o := runVia(t, mode, cfg, probe("hold-conns", "200", proxyAddr, "500"))
			close(stop)
			<-done
			if o.code == 0 || !strings.Contains(o.stdout, "held 8 of 200") {
				t.Errorf("held connections: exit %d %q", o.code, o.stdout)
			}
			// The helper's own pipes and sockets come and go too.
			if peak > 2*cfg.ProxyMaxConns+16 {
				t.Errorf("the host process held %d more descriptors at the peak, for a limit of %d connections", peak, cfg.ProxyMaxConns)
			}
			if o := runVia(t, mode, cfg, probe("idle-tunnel", proxyAddr, dest, "2000")); o.code == 0 {
				t.Errorf("a tunnel silent for 2s outlived the 700ms idle timeout: %q", o.stdout)
			}
			if o := runVia(t, mode, cfg, probe("idle-tunnel", proxyAddr, dest, "100")); o.code != 0 {
				t.Errorf("a tunnel silent for 100ms did not survive: %q %s", o.stdout, o.stderr)
			}
		})
	}
	rep := wrapReport(t, Config{Workspace: f.ws, Network: NetworkAllowlist})
	if rep.ProxyMaxConns != DefaultProxyConns || rep.ProxyIdleTimeout != DefaultProxyIdle || !strings.Contains(rep.Text(), "at most 128 connections") {
		t.Errorf("the report does not state the proxy's bounds:\n%s", rep.Text())
	}
}

// TestDoctorProtections checks that the doctor says what a default
// sandbox protects and how, and who its commands are.
func TestDoctorProtections(t *testing.T) {
	requireSandbox(t)
	text := Doctor().Text()
	for _, want := range []string{
		"identity: ", "protected: devices: a private read-only /dev with only null, zero, full, random, urandom, tty",
		"protected: processes: at most 512 processes and threads per sandbox",
		"protected: private tmpfs: /tmp, /dev/shm, /run and hidden home directories hold at most 1 GiB each",
		"protected: network allowlist proxy: at most 128 connections per sandbox",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor does not say %q:\n%s", want, text)
		}
	}
	if os.Geteuid() == 0 && !strings.Contains(text, strconv.Itoa(sandboxHostID)) {
		t.Errorf("a root host's doctor does not name the unprivileged identity:\n%s", text)
	}
}

// TestLandlockRules checks the ruleset handed to go-landlock: every
// right of the newest ABI is handled (pathname unix sockets included),
// none of a file root's rights is a directory right, /dev may only be
// listed, and on ABI 1 no rule asks for refer (the library's best effort
// would otherwise drop Landlock altogether).
func TestLandlockRules(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "f")
	mustWrite(t, file, "x", 0o644)
	cfg := landlockConfig(NetworkNone)
	if cfg.HandledAccessFS != landlockNewest.HandledAccessFS || cfg.HandledAccessNet == 0 || cfg.Scoped == 0 {
		t.Errorf("handled: %v", cfg)
	}
	if landlockConfig(NetworkFull).HandledAccessNet != 0 {
		t.Error("the full network handles network rights")
	}
	for _, abi := range []int{1, 7, 11} {
		p := &policy{LandlockABI: abi, Readable: []string{"/dev", "/usr"}, Writable: []string{ws, file}, Network: NetworkAllowlist}
		rules, err := landlockRules(p)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, r := range rules {
			texts = append(texts, fmt.Sprint(r))
		}
		all := strings.Join(texts, "\n")
		for _, s := range texts {
			switch {
			case strings.Contains(s, "[/dev]") && s != "REQUIRE {read_dir} for paths [/dev]":
				t.Errorf("ABI %d: /dev rule %s", abi, s)
			case strings.Contains(s, "["+file+"]") && (strings.Contains(s, "make_") || strings.Contains(s, "read_dir")):
				t.Errorf("ABI %d: file rule with directory rights: %s", abi, s)
			case strings.Contains(s, "resolve_unix"):
				t.Errorf("ABI %d: granted %s", abi, s)
			}
		}
		if abi == 1 && strings.Contains(all, "refer") {
			t.Errorf("ABI 1 rules ask for refer:\n%s", all)
		}
		if abi > 1 && !strings.Contains(all, "refer") {
			t.Errorf("ABI %d rules lack refer on the writable roots:\n%s", abi, all)
		}
		if !strings.Contains(all, strconv.Itoa(proxyPort)) {
			t.Errorf("ABI %d: no rule for the proxy's port:\n%s", abi, all)
		}
	}
}

// TestIdentityFailsClosed checks, as root, that a granted root whose
// filesystem cannot be idmapped (sysfs) makes Wrap refuse, and that with
// AllowDegraded the report says the command runs as the host's root and
// has no process limit.
func TestIdentityFailsClosed(t *testing.T) {
	requireSandbox(t)
	if os.Geteuid() != 0 {
		t.Skip("only a root host switches identity")
	}
	cfg := Config{Workspace: t.TempDir(), ExtraReadable: []string{"/sys/kernel"}}
	cmd := exec.Command("/bin/true")
	cmd.Dir = cfg.Workspace
	if _, err := wrapCmd(cmd, cfg); !errors.Is(err, ErrDegraded) || !strings.Contains(err.Error(), "/sys/kernel") {
		t.Fatalf("Wrap with an extra root on sysfs: %v", err)
	}
	cfg.AllowDegraded = true
	rep := wrapReport(t, cfg)
	if rep.Has(LayerIdentity) || rep.Has(LayerProcessLimit) || rep.ProcessLimit != 0 || !strings.Contains(rep.Text(), "downgraded: "+LayerIdentity) ||
		!strings.Contains(rep.Text(), "downgraded: "+LayerProcessLimit) {
		t.Errorf("degraded report:\n%s", rep.Text())
	}
	// The fallback hides the usual secrets, and says so.
	o := runIn(t, cfg, "cat /etc/shadow; head -c1 /etc/passwd; id -u")
	if strings.Contains(o.stdout, "root:") || !strings.HasSuffix(o.stdout, "r0\n") || !strings.Contains(rep.Identity, "/etc/shadow") {
		t.Errorf("the fallback does not hide /etc/shadow: %q %s\n%s", o.stdout, o.stderr, rep.Text())
	}
}

// TestProxyBudget checks that the proxies of one process together hold
// no more client connections than the process-wide budget, whatever each
// sandbox's own limit, and that a connection that ends gives its place
// back.
func TestProxyBudget(t *testing.T) {
	proxyBudgetMax()
	proxyBudget.mu.Lock()
	saved, base := proxyBudget.max, proxyBudget.used
	proxyBudget.max = base + 3
	proxyBudget.mu.Unlock()
	defer func() {
		proxyBudget.mu.Lock()
		proxyBudget.max = saved
		proxyBudget.mu.Unlock()
	}()
	a, b := newHostProxy(t), newHostProxy(t)
	held := func(addr string) (net.Conn, string) {
		c, err := net.Dial("tcp4", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		buf := make([]byte, 512)
		n, _ := c.Read(buf)
		return c, string(buf[:n])
	}
	var conns []net.Conn
	for _, addr := range []string{a.addr, a.addr, b.addr} {
		c, got := held(addr)
		conns = append(conns, c)
		if got != "" {
			t.Fatalf("a connection within the budget was answered %q", got)
		}
	}
	c, got := held(b.addr)
	c.Close()
	if !strings.Contains(got, "503") || !strings.Contains(got, "this host process") {
		t.Errorf("a connection over the process-wide budget got %q", got)
	}
	conns[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, got := held(b.addr)
		c.Close()
		if got == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed connection did not give its place back: %q", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, c := range conns[1:] {
		c.Close()
	}
}
