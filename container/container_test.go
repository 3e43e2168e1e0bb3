package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
)

// probe prints what the isolation looks like from inside, one KEY=VALUE
// per line.
const probe = `echo "uid=$(id -u) gid=$(id -g)"
echo "links=$(ip -o link | awk -F': ' '{print $2}' | tr '\n' ' ')"
echo "capeff=$(awk '/^CapEff/ {print $2}' /proc/self/status)"
echo "capbnd=$(awk '/^CapBnd/ {print $2}' /proc/self/status)"
echo "nnp=$(awk '/^NoNewPrivs/ {print $2}' /proc/self/status)"
if touch /rootprobe 2>/dev/null; then echo root=writable; else echo root=readonly; fi
if touch /tmp/probe 2>/dev/null; then echo tmp=writable; else echo tmp=readonly; fi
echo "tmpsize=$(df -k /tmp | awk 'NR==2 {print $2}')"
if head -c 83886080 /dev/zero > /tmp/fill 2>/dev/null; then echo tmpfill=fit; else echo tmpfill=full; fi
: > /tmp/fill
echo "hello=$(cat /workspace/hello.txt)"
if touch /workspace/probe 2>/dev/null; then echo ws=writable; else echo ws=readonly; fi
echo "mem=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max 2>/dev/null)"
echo "pids=$(cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max 2>/dev/null)"
echo "nofile=$(ulimit -n)"
echo "pwd=$(pwd)"
`

func parseProbe(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

func TestIsolationDefaults(t *testing.T) {
	for _, mode := range []Mode{Stateless, Persistent} {
		t.Run(mode.String(), func(t *testing.T) {
			o := testOptions(t)
			o.Mode = mode
			o.Workspace = workspace(t, 0o777)
			e := newExecutor(t, o)
			res := run(t, e, shellcap.Request{Command: probe, Timeout: 2 * time.Minute})
			if res.Err != nil || res.ExitCode != 0 || res.TimedOut {
				t.Fatalf("probe failed:\n%s", res.Text())
			}
			t.Logf("seen from inside:\n%s", res.Stdout)
			got := parseProbe(res.Stdout)
			want := map[string]string{
				"uid":     "65534 gid",
				"links":   "lo",
				"capeff":  "0000000000000000",
				"capbnd":  "0000000000000000",
				"nnp":     "1",
				"root":    "readonly",
				"tmp":     "writable",
				"tmpsize": "65536",
				"tmpfill": "full",
				"hello":   "hello from the host",
				"ws":      "readonly",
				"pids":    "256",
				"nofile":  "1024",
				"pwd":     "/workspace",
			}
			got["uid"] = strings.TrimSuffix(got["uid"], "=65534") // "65534 gid=65534"
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if m := got["mem"]; m != "536870912" {
				t.Logf("memory limit seen inside: %q (want 536870912 where the memory cgroup is visible)", m)
				if m != "" {
					t.Errorf("mem = %q, want 536870912", m)
				}
			}
			if _, err := os.Stat(filepath.Join(o.Workspace, "probe")); err == nil {
				t.Error("the read-only workspace was written from the container")
			}
		})
	}
}

func TestWritableWorkspace(t *testing.T) {
	o := testOptions(t)
	o.Workspace = workspace(t, 0o777)
	o.WritableWorkspace = true
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "echo made > made.txt && mkdir -p sub && cd sub && pwd", Timeout: time.Minute})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("write failed:\n%s", res.Text())
	}
	b, err := os.ReadFile(filepath.Join(o.Workspace, "made.txt"))
	if err != nil || string(b) != "made\n" {
		t.Fatalf("host sees %q, %v", b, err)
	}
	res = run(t, e, shellcap.Request{Command: "pwd", Dir: "sub", Timeout: time.Minute})
	if strings.TrimSpace(res.Stdout) != "/workspace/sub" || res.Cwd != "/workspace/sub" {
		t.Errorf("Dir sub: stdout %q, Cwd %q", res.Stdout, res.Cwd)
	}
	res = run(t, e, shellcap.Request{Command: "pwd", Dir: "../etc"})
	if !errors.Is(res.Err, shellcap.ErrWorkdirOutside) {
		t.Errorf("Dir ../etc: Err %v, want ErrWorkdirOutside", res.Err)
	}
}

func TestResultText(t *testing.T) {
	o := testOptions(t)
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "echo out; echo err >&2; exit 3", Timeout: time.Minute})
	want := "[stdout]\nout\n\n[stderr]\nerr\n\n[exit code: 3]"
	if got := res.Text(); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if res.ExitCode != 3 || res.Cwd != WorkspaceMount {
		t.Errorf("ExitCode %d Cwd %q", res.ExitCode, res.Cwd)
	}
	res = run(t, e, shellcap.Request{Command: "cat; echo", Stdin: strings.NewReader("from stdin"), Timeout: time.Minute})
	if res.Stdout != "from stdin\n" {
		t.Errorf("stdin: %q\n%s", res.Stdout, res.Text())
	}
	res = run(t, e, shellcap.Request{Command: "echo a\x00b"})
	if !errors.Is(res.Err, shellcap.ErrNULByte) {
		t.Errorf("NUL: Err %v", res.Err)
	}
	res = run(t, e, shellcap.Request{Command: "true", Timeout: time.Hour})
	if !errors.Is(res.Err, shellcap.ErrTimeoutRange) {
		t.Errorf("timeout range: Err %v", res.Err)
	}
	res = run(t, e, shellcap.Request{Command: "echo " + strings.Repeat("x", 32*4096), Timeout: time.Minute})
	if !errors.Is(res.Err, shellcap.ErrCommandTooLong) {
		t.Errorf("a command over the argument limit: Err %v, want ErrCommandTooLong", res.Err)
	}
}

func TestEnvThroughFile(t *testing.T) {
	o := testOptions(t)
	o.Env = map[string]string{"SECRET_TOKEN": "s3cr3t value with spaces"}
	e := newExecutor(t, o)
	req := shellcap.Request{Command: `printf '%s|%s' "$SECRET_TOKEN" "$PER_CALL"`, Env: map[string]string{"PER_CALL": "x=y"}, Timeout: time.Minute}
	for _, a := range e.commandArgv("id", "/env", "/tmp", req) {
		if strings.Contains(a, "s3cr3t") || strings.Contains(a, "x=y") {
			t.Errorf("a value reached argv: %q", a)
		}
	}
	res := run(t, e, req)
	if res.Stdout != "s3cr3t value with spaces|x=y" {
		t.Errorf("env inside: %q\n%s", res.Stdout, res.Text())
	}
	left, err := os.ReadDir(e.privateDir)
	if err != nil || len(left) != 0 {
		t.Errorf("env files left in %s: %v %v", e.privateDir, left, err)
	}
}

func TestStatelessTimeoutKills(t *testing.T) {
	o := testOptions(t)
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "echo started; sleep 60", Timeout: 3 * time.Second})
	if !res.TimedOut {
		t.Fatalf("not timed out:\n%s", res.Text())
	}
	if !strings.Contains(res.Text(), "[Command timed out after 3s]") {
		t.Errorf("Text lacks the timeout notice:\n%s", res.Text())
	}
	if res.Duration > 50*time.Second {
		t.Errorf("took %v: the sleep was not killed", res.Duration)
	}
	waitNoContainers(t, e)
}

func TestCancelKills(t *testing.T) {
	o := testOptions(t)
	e := newExecutor(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(3 * time.Second)
		cancel()
	}()
	res, err := e.Run(ctx, shellcap.Request{Command: "sleep 60", Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Canceled || res.Duration > 50*time.Second {
		t.Errorf("Canceled %v after %v:\n%s", res.Canceled, res.Duration, res.Text())
	}
	waitNoContainers(t, e)
}

func TestPersistentKeepsState(t *testing.T) {
	o := testOptions(t)
	o.Mode = Persistent
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "echo kept > /tmp/state", Timeout: 2 * time.Minute})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("first command:\n%s", res.Text())
	}
	res = run(t, e, shellcap.Request{Command: "cat /tmp/state", Timeout: time.Minute})
	if res.Stdout != "kept\n" {
		t.Fatalf("state lost: %q\n%s", res.Stdout, res.Text())
	}

	// A timeout kills the command and its children, not the container.
	res = run(t, e, shellcap.Request{Command: "sleep 61 & sleep 62", Timeout: 3 * time.Second})
	if !res.TimedOut {
		t.Fatalf("not timed out:\n%s", res.Text())
	}
	if res.Duration > 50*time.Second {
		t.Errorf("took %v", res.Duration)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res = run(t, e, shellcap.Request{Command: "cat /tmp/state; ps -o args | grep -c '^sleep 6[12]'", Timeout: time.Minute})
		if strings.HasPrefix(res.Stdout, "kept\n") && strings.HasSuffix(res.Stdout, "\n0\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the timeout: %q\n%s", res.Stdout, res.Text())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := len(containersOf(t, e)); n != 1 {
		t.Errorf("%d containers, want the one persistent container", n)
	}

	name := e.Name()
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if left := containersOf(t, e); len(left) != 0 {
		t.Errorf("Close left %v (name %s)", left, name)
	}
	if _, err := e.Run(context.Background(), shellcap.Request{Command: "true"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
}

func TestOutputLimit(t *testing.T) {
	o := testOptions(t)
	o.MaxOutputBytes = 1 << 20
	o.MaxOutputChars = 2000
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "yes 0123456789", Timeout: 2 * time.Minute})
	if !res.OutputLimitExceeded || !res.Truncated || res.TimedOut {
		t.Fatalf("limit %v truncated %v timedout %v", res.OutputLimitExceeded, res.Truncated, res.TimedOut)
	}
	if res.StdoutBytes != 1<<20 {
		t.Errorf("StdoutBytes %d, want %d", res.StdoutBytes, 1<<20)
	}
	text := res.Text()
	if n := len([]rune(text)); n > 2000 {
		t.Errorf("Text has %d chars", n)
	}
	if !strings.Contains(text, "Output exceeded") {
		t.Errorf("Text lacks the limit note: %q", text[max(0, len(text)-300):])
	}
	waitNoContainers(t, e)
}

// The Shell's policy and approval decide every container command; a
// refused command creates no container and carries the Shell's sentinel.
func TestShellPolicyRefuses(t *testing.T) {
	var asked []string
	sh := testShell(t, shellcap.Options{
		ApprovalMode: shellcap.ApproveAll,
		Approve: func(ctx context.Context, req shellcap.ApprovalRequest) (shellcap.Approval, error) {
			asked = append(asked, req.Command)
			return shellcap.Approval{Approved: !strings.Contains(req.Command, "refuse"), Reason: "not this one"}, nil
		},
	})
	e := newExecutorOn(t, sh, testOptions(t))
	cases := []struct {
		command string
		want    error
	}{
		{"rm -rf /tmp/x", shellcap.ErrDenied}, // the default deny list
		{"echo refuse", shellcap.ErrNotApproved},
		{"echo a\x00b", shellcap.ErrNULByte},
	}
	for _, c := range cases {
		res := run(t, e, shellcap.Request{Command: c.command, Timeout: time.Minute})
		if !errors.Is(res.Err, c.want) {
			t.Errorf("%q: Err %v, want %v", c.command, res.Err, c.want)
			continue
		}
		if res.Text() != res.Err.Error() || res.Stdout != "" || res.StdoutBytes != 0 {
			t.Errorf("%q: a refusal reads %q with stdout %q", c.command, res.Text(), res.Stdout)
		}
	}
	if n := len(containersOf(t, e)); n != 0 {
		t.Errorf("refused commands created %d containers", n)
	}
	res := run(t, e, shellcap.Request{Command: "echo approved", Timeout: time.Minute})
	if res.Err != nil || res.Stdout != "approved\n" {
		t.Errorf("approved command: Err %v, text %q", res.Err, res.Text())
	}
	if want := []string{"echo refuse", "echo approved"}; !slices.Equal(asked, want) {
		t.Errorf("approver asked %q, want %q (denied and unparsable commands never reach it)", asked, want)
	}
}

func TestPersistentTimeoutSparesOthers(t *testing.T) {
	o := testOptions(t)
	o.Mode = Persistent
	e := newExecutor(t, o)
	run(t, e, shellcap.Request{Command: "true", Timeout: 2 * time.Minute}) // start the container
	done := make(chan *shellcap.Result)
	go func() {
		res, err := e.Run(context.Background(), shellcap.Request{Command: "sleep 120; echo survived", Timeout: 3 * time.Minute})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// Wait until the neighbour runs, then time out a command that spawns
	// a background child and one in a new session.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		res := run(t, e, shellcap.Request{Command: "ps -o args | grep -c '^sleep 120'", Timeout: time.Minute})
		if strings.TrimSpace(res.Stdout) == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the neighbour never started: %s", res.Text())
		}
	}
	res := run(t, e, shellcap.Request{Command: "sleep 61 & setsid sleep 62 & sleep 63", Timeout: 3 * time.Second})
	if !res.TimedOut {
		t.Fatalf("not timed out:\n%s", res.Text())
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		res = run(t, e, shellcap.Request{Command: "ps -o args | grep -E -c '^sleep (6[123]|120)'", Timeout: time.Minute})
		if strings.TrimSpace(res.Stdout) == "1" { // only the neighbour's sleep 120
			break
		}
		if time.Now().After(deadline) {
			out := run(t, e, shellcap.Request{Command: "ps -o pid,args", Timeout: time.Minute})
			t.Fatalf("processes after the timeout:\n%s", out.Stdout)
		}
	}
	// Stop the neighbour by Close; its Run must end.
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if strings.Contains(res.Stdout, "survived") {
			t.Errorf("the neighbour finished normally: %s", res.Text())
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the neighbour's Run did not end after Close")
	}
}

func TestPersistentRestartsAfterStop(t *testing.T) {
	o := testOptions(t)
	o.Mode = Persistent
	e := newExecutor(t, o)
	run(t, e, shellcap.Request{Command: "echo x > /tmp/state", Timeout: 2 * time.Minute})
	if _, err := e.engine(context.Background(), "kill", "--signal", "KILL", e.Name()); err != nil {
		t.Fatal(err)
	}
	res := run(t, e, shellcap.Request{Command: "cat /tmp/state", Timeout: time.Minute})
	if res.ExitCode == 0 || !strings.Contains(res.Text(), "container had stopped") {
		t.Fatalf("after the container stopped:\n%s", res.Text())
	}
	res = run(t, e, shellcap.Request{Command: "test ! -e /tmp/state && echo fresh", Timeout: 2 * time.Minute})
	if res.Stdout != "fresh\n" {
		t.Fatalf("no fresh container:\n%s", res.Text())
	}
}

// A timeout that fires while the engine is still creating the container
// must not leave the container running or behind.
func TestTimeoutDuringStartup(t *testing.T) {
	for _, mode := range []Mode{Stateless, Persistent} {
		t.Run(mode.String(), func(t *testing.T) {
			o := testOptions(t)
			o.Mode = mode
			e := newExecutor(t, o)
			if mode == Persistent {
				run(t, e, shellcap.Request{Command: "true", Timeout: 2 * time.Minute})
			}
			res := run(t, e, shellcap.Request{Command: "sleep 60", Timeout: 20 * time.Millisecond})
			if !res.TimedOut {
				t.Fatalf("not timed out:\n%s", res.Text())
			}
			if res.Duration > 50*time.Second {
				t.Errorf("took %v", res.Duration)
			}
			if mode == Stateless {
				waitNoContainers(t, e)
				return
			}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
				res = run(t, e, shellcap.Request{Command: "ps -o args | grep -c '^sleep 60'", Timeout: time.Minute})
				if strings.TrimSpace(res.Stdout) == "0" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("sleep 60 still runs: %s", res.Text())
				}
			}
		})
	}
}

// The Shell's state directory (job logs, stdin FIFOs, kept output) in the
// mounted workspace is covered by an empty read-only tmpfs, whatever its
// permissions; with a writable mount New makes it first, so no command
// can plant one.
func TestStateDirHidden(t *testing.T) {
	const look = `cat /workspace/.shellcap/jobs/log 2>/dev/null || echo unseen
if touch /workspace/.shellcap/x 2>/dev/null; then echo writable; else echo readonly; fi`
	for _, mode := range []Mode{Stateless, Persistent} {
		for _, writable := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s writable=%v", mode, writable), func(t *testing.T) {
				ws := workspace(t, 0o777)
				state := filepath.Join(ws, ".shellcap")
				o := testOptions(t)
				o.Mode, o.WritableWorkspace = mode, writable
				e := newExecutorOn(t, testShell(t, shellcap.Options{Workspace: ws}), o)
				if _, err := os.Stat(state); writable && err != nil {
					t.Fatalf("New did not make the state directory of a writable mount: %v", err)
				}
				// Open to anyone, so that only the cover keeps it from the container.
				if err := os.MkdirAll(filepath.Join(state, "jobs"), 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(state, 0o777); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(state, "jobs", "log"), []byte("the host's\n"), 0o666); err != nil {
					t.Fatal(err)
				}
				res := run(t, e, shellcap.Request{Command: look, Timeout: time.Minute})
				if res.Err != nil || res.Stdout != "unseen\nreadonly\n" {
					t.Errorf("inside: %q, want the state directory unseen and read-only:\n%s", res.Stdout, res.Text())
				}
				if _, err := os.Stat(filepath.Join(state, "x")); err == nil {
					t.Error("a command wrote into the host's state directory")
				}
			})
		}
	}
}
