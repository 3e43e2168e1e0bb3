package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// launchIn runs script with bash through l, with the workspace as its
// directory, and waits for it.
func launchIn(t *testing.T, l *Launcher, ws, script string, env ...string) outcome {
	t.Helper()
	return launchCmd(t, l, ws, script, env, nil)
}

// launchWith is launchIn with extra descriptors (3 and up).
func launchWith(t *testing.T, l *Launcher, ws, script string, extra ...*os.File) outcome {
	t.Helper()
	return launchCmd(t, l, ws, script, nil, extra)
}

func launchCmd(t *testing.T, l *Launcher, ws, script string, env []string, extra []*os.File) outcome {
	t.Helper()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = ws
	cmd.Env = append(baseEnv(ws), env...)
	cmd.ExtraFiles = extra
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	p, err := l.Start(cmd)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		t.Fatalf("Start: %v", err)
	}
	var out, errb bytes.Buffer
	done := make(chan struct{}, 2)
	go func() { out.ReadFrom(outR); done <- struct{}{} }()
	go func() { errb.ReadFrom(errR); done <- struct{}{} }()
	// Unlike a one-shot sandbox, the launcher's pid namespace outlives the
	// command: what it left in the background may hold the pipes open.
	st, err := p.Wait()
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	deadline := time.Now().Add(time.Second)
	outR.SetReadDeadline(deadline)
	errR.SetReadDeadline(deadline)
	<-done
	<-done
	outR.Close()
	errR.Close()
	return outcome{code: st.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

func TestLauncherBasics(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	outside := t.TempDir()
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o := launchIn(t, l, ws, `echo hi; echo pid=$$; ls /proc | grep -c '^[0-9]'; echo x > inws; echo y > `+outside+`/evil; exit 7`)
	t.Logf("%+v", o)
	if o.code != 7 || !strings.Contains(o.stdout, "hi") {
		t.Fatalf("got %+v", o)
	}
	if _, err := os.Stat(outside + "/evil"); err == nil {
		t.Fatal("wrote outside")
	}
	if _, err := os.Stat(ws + "/inws"); err != nil {
		t.Fatal(err)
	}
}

// TestLauncherAttacks attacks what only a launcher has: the init of the
// shared pid namespace, the launcher process itself, and its lifetime.
func TestLauncherAttacks(t *testing.T) {
	l, ws := testLauncher(t)

	// The launcher is outside the commands' pid namespace: nothing in
	// their /proc is it.
	o := launchIn(t, l, ws, `for d in /proc/[0-9]*; do tr '\0' ' ' < $d/cmdline 2>/dev/null; echo; done`)
	if strings.Contains(o.stdout, launcherEntry) {
		t.Errorf("the launcher is visible to its commands:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, initEntry) {
		t.Errorf("want the init (PID 1) in the list:\n%s", o.stdout)
	}

	// Init is not dumpable and outside the commands' Landlock domain: its
	// memory, environment and descriptors are out of reach, and signals
	// do not kill it.
	for _, script := range []string{
		`cat /proc/1/environ`,
		`readlink /proc/1/fd/0`,
		`cat /proc/1/fd/4`,
		`dd if=/proc/1/mem bs=1 count=1 skip=4096`,
		`kill -TERM 1`,
		`kill -KILL 1`,
		`kill -INT 1; kill -HUP 1; kill -SEGV 1; kill -ABRT 1`,
	} {
		o := launchIn(t, l, ws, script)
		if o.code == 0 {
			t.Errorf("%q succeeded: %s%s", script, o.stdout, o.stderr)
		}
	}
	o = launchIn(t, l, ws, `echo still here`)
	if o.code != 0 || o.stdout != "still here\n" {
		t.Fatalf("the launcher did not survive the attacks: %+v", o)
	}
}

// TestLauncherLifetime checks that Close kills what commands left running
// and that a launcher killed from outside is rebuilt by the next Start.
func TestLauncherLifetime(t *testing.T) {
	l, ws := testLauncher(t)
	o := launchIn(t, l, ws, `setsid sleep 1000 >/dev/null 2>&1 < /dev/null & echo $!`)
	if o.code != 0 {
		t.Fatalf("%+v", o)
	}
	if left := appearing("sleep\x001000"); len(left) != 1 {
		t.Fatalf("want the background sleep running, found %v", left)
	}

	// Kill the launcher helper from outside: its namespace goes with it,
	// and the next Start builds a new sandbox.
	killHelper(t, l)
	for _, pid := range processesWith("sleep\x001000") {
		if !waitGone(pid) {
			t.Errorf("process %d outlived its launcher", pid)
		}
	}
	o = launchIn(t, l, ws, `echo again`)
	if o.code != 0 || o.stdout != "again\n" {
		t.Fatalf("after the launcher died: %+v", o)
	}
	// Killed again, and used at once, before anything reaped it.
	killHelper(t, l)
	o = launchIn(t, l, ws, `echo at once`)
	if o.code != 0 || o.stdout != "at once\n" {
		t.Fatalf("right after the launcher died: %+v", o)
	}

	launchIn(t, l, ws, `setsid sleep 1001 >/dev/null 2>&1 < /dev/null &`)
	left := appearing("sleep\x001001")
	if len(left) != 1 {
		t.Fatalf("want the background sleep running, found %v", left)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if !waitGone(left[0]) {
		t.Errorf("process %d outlived Close", left[0])
	}
	cmd := exec.Command("/bin/true")
	if _, err := l.Start(cmd); err == nil {
		t.Fatal("Start after Close succeeded")
	}
}

// processesWith returns the PIDs whose command line contains s (arguments
// separated by NUL).
func processesWith(s string) []int {
	var pids []int
	des, _ := os.ReadDir("/proc")
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), s) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// appearing waits a while for a process whose command line contains s and
// returns the PIDs found.
func appearing(s string) []int {
	for i := 0; i < 500; i++ {
		if pids := processesWith(s); len(pids) > 0 {
			return pids
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// TestLauncherFailedStart starts what cannot be executed: each start fails
// with the reason, and no zombie is left behind.
func TestLauncherFailedStart(t *testing.T) {
	l, ws := testLauncher(t)
	script := ws + "/noexec"
	if err := os.WriteFile(script, []byte("\x7fELF garbage"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, dir, want string }{
		{script, ws, "exec format error"},
		{ws + "/missing", ws, "no such file"},
		{"/bin/true", ws + "/gone", "no such file"},
	} {
		cmd := exec.Command(c.path)
		cmd.Dir = c.dir
		_, err := l.Start(cmd)
		if err == nil || !strings.Contains(strings.ToLower(err.Error()), c.want) {
			t.Errorf("Start(%s in %s): %v, want %q", c.path, c.dir, err, c.want)
		}
	}
	// A child of this test process that another test is about to reap
	// (a helper that just exited) is a zombie for a moment too: only a
	// zombie that stays one for two seconds was left behind.
	zombies := func() []string {
		var out []string
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			b, _ := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
			for _, f := range strings.Fields(string(b)) {
				if st, err := os.ReadFile("/proc/" + f + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
					out = append(out, string(st))
				}
			}
		}
		return out
	}
	left := zombies()
	for deadline := time.Now().Add(2 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = zombies() {
		time.Sleep(20 * time.Millisecond)
	}
	for _, st := range left {
		t.Errorf("zombie child left: %s", st)
	}
	o := launchIn(t, l, ws, "echo fine")
	if o.stdout != "fine\n" {
		t.Fatalf("after failed starts: %+v", o)
	}
}

// testLauncher returns a Launcher on a fresh workspace, closed when the
// test ends.
func testLauncher(t *testing.T) (*Launcher, string) {
	t.Helper()
	requireSandbox(t)
	ws := t.TempDir()
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, ws
}

// killHelper kills l's helper process from outside, as the OOM killer
// would.
func killHelper(t *testing.T, l *Launcher) {
	t.Helper()
	l.mu.Lock()
	pid := l.h.cmd.Process.Pid
	l.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}
