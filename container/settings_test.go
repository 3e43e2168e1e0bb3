package container

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
)

// limitsScript prints the soft limits the kernel holds for the command,
// one "NAME=VALUE" line each, from /proc/self/limits.
const limitsScript = `awk '/^Max file size/ {print "fsize=" $4}
/^Max address space/ {print "as=" $4}
/^Max cpu time/ {print "cpu=" $4}
/^Max processes/ {print "nproc=" $3}' /proc/self/limits`

// graceScript and a child of it clean up on SIGTERM, which only a stop in
// two phases gives them the time to do.
const graceScript = `sh -c 'trap "echo child cleaned up; exit 0" TERM; while :; do sleep 1; done' &
trap 'echo cleaned up; wait; exit 0' TERM; echo ready; while :; do sleep 1; done`

func checkGrace(t *testing.T, res *shellcap.Result) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	slices.Sort(lines)
	if want := []string{"child cleaned up", "cleaned up", "ready"}; !res.TimedOut || !slices.Equal(lines, want) {
		t.Errorf("TimedOut %v, stdout %q: want SIGTERM once to each process and the Shell's grace before SIGKILL", res.TimedOut, res.Stdout)
	}
}

// Each Shell setting, set once on the Shell and on nothing else, is seen
// in a container command (the table in doc.go).
func TestShellSettingsFlowDown(t *testing.T) {
	requirePodman(t)
	t.Setenv("SHELLCAP_TEST_HOST_ONLY", "host value")
	custom := workspace(t, 0o755)
	if err := os.WriteFile(filepath.Join(custom, "marker"), []byte("custom workspace"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		shell shellcap.Options
		opts  func(*Options) // container options beyond testOptions; nil: none
		req   shellcap.Request
		check func(t *testing.T, res *shellcap.Result)
	}{
		{
			name:  "Workspace",
			shell: shellcap.Options{Workspace: custom},
			req:   shellcap.Request{Command: "cat marker; echo; pwd"},
			check: func(t *testing.T, res *shellcap.Result) {
				if res.Stdout != "custom workspace\n/workspace\n" || res.Cwd != WorkspaceMount {
					t.Errorf("stdout %q, Cwd %q", res.Stdout, res.Cwd)
				}
			},
		},
		{
			name:  "ReadOnly",
			shell: shellcap.Options{ReadOnly: true},
			opts:  func(o *Options) { o.Env = map[string]string{"OWN": "own"} },
			req:   shellcap.Request{Command: `printf '%s|' "$OWN"; cat hello.txt; touch new 2>/dev/null || echo read-only`},
			check: func(t *testing.T, res *shellcap.Result) {
				// A read-only Shell runs nothing itself; a container mounts its workspace read-only.
				if res.Err != nil || res.Stdout != "own|hello from the host\nread-only\n" {
					t.Errorf("stdout %q:\n%s", res.Stdout, res.Text())
				}
			},
		},
		{
			name:  "DefaultTimeout",
			shell: shellcap.Options{DefaultTimeout: 3 * time.Second},
			req:   shellcap.Request{Command: "sleep 60"},
			check: func(t *testing.T, res *shellcap.Result) {
				if !res.TimedOut || res.Timeout != 3*time.Second {
					t.Errorf("TimedOut %v, Timeout %v, want the Shell's 3s:\n%s", res.TimedOut, res.Timeout, res.Text())
				}
			},
		},
		{
			name:  "MaxTimeout",
			shell: shellcap.Options{MaxTimeout: 40 * time.Second},
			req:   shellcap.Request{Command: "true", Timeout: 45 * time.Second},
			check: func(t *testing.T, res *shellcap.Result) {
				if !errors.Is(res.Err, shellcap.ErrTimeoutRange) || !strings.Contains(res.Text(), "at most 40s") {
					t.Errorf("Err %v, text %q, want the Shell's range (40s)", res.Err, res.Text())
				}
			},
		},
		{
			name:  "MaxOutputBytes",
			shell: shellcap.Options{MaxOutputBytes: 4096},
			req:   shellcap.Request{Command: "yes 0123456789"},
			check: func(t *testing.T, res *shellcap.Result) {
				if !res.OutputLimitExceeded || res.StdoutBytes != 4096 {
					t.Errorf("OutputLimitExceeded %v, StdoutBytes %d, want the Shell's 4096", res.OutputLimitExceeded, res.StdoutBytes)
				}
			},
		},
		{
			name:  "MaxOutputChars",
			shell: shellcap.Options{MaxOutputChars: 20},
			req:   shellcap.Request{Command: "seq 1 100"},
			check: func(t *testing.T, res *shellcap.Result) {
				if n := utf8.RuneCountInString(res.Text()); n != 20 || res.TextLimit != 20 || !res.Truncated {
					t.Errorf("Text has %d characters (TextLimit %d, Truncated %v), want the Shell's 20", n, res.TextLimit, res.Truncated)
				}
			},
		},
		{
			name:  "HeadAndTail",
			shell: shellcap.Options{HeadAndTail: true},
			req:   shellcap.Request{Command: "seq 1 20000"},
			check: func(t *testing.T, res *shellcap.Result) {
				text := res.Text()
				if !res.HeadAndTail || !strings.HasPrefix(text, "[stdout]\n1\n2\n") || !strings.Contains(text, "\n20000\n") {
					t.Errorf("HeadAndTail %v; text starts %q and ends %q", res.HeadAndTail, text[:min(40, len(text))], text[max(0, len(text)-40):])
				}
			},
		},
		{
			name:  "KeepANSI",
			shell: shellcap.Options{KeepANSI: true},
			req:   shellcap.Request{Command: `printf '\033[31mred\033[0m'`},
			check: func(t *testing.T, res *shellcap.Result) {
				if res.Stdout != "\x1b[31mred\x1b[0m" {
					t.Errorf("stdout %q, want the escapes kept", res.Stdout)
				}
			},
		},
		{
			name:  "Env",
			shell: shellcap.Options{Env: map[string]string{"FROM_SHELL": "shell value"}},
			req:   shellcap.Request{Command: `printf '%s|%s|%s' "$FROM_SHELL" "$PAGER" "${HOME-unset}"`},
			check: func(t *testing.T, res *shellcap.Result) {
				// Options.Env and the non-interactive defaults; not the host's HOME.
				if want := "shell value|cat|"; !strings.HasPrefix(res.Stdout, want) || strings.HasSuffix(res.Stdout, os.Getenv("HOME")) {
					t.Errorf("stdout %q, want %q and not the host's HOME", res.Stdout, want+"...")
				}
			},
		},
		{
			name:  "PassEnv not taken",
			shell: shellcap.Options{PassEnv: []string{"SHELLCAP_TEST_HOST_ONLY"}},
			req:   shellcap.Request{Command: `printf '%s' "${SHELLCAP_TEST_HOST_ONLY-unset}"`},
			check: func(t *testing.T, res *shellcap.Result) {
				if res.Stdout != "unset" {
					t.Errorf("stdout %q: a host variable reached the container", res.Stdout)
				}
			},
		},
		{
			name:  "DeniedEnvPatterns",
			shell: shellcap.Options{Env: map[string]string{"SHELL_TOKEN": "a", "KEPT": "k"}, DeniedEnvPatterns: []string{"*_TOKEN"}},
			opts:  func(o *Options) { o.Env = map[string]string{"OWN_TOKEN": "b"} },
			req:   shellcap.Request{Command: `printf '%s|%s|%s|%s' "${SHELL_TOKEN-unset}" "${OWN_TOKEN-unset}" "${REQ_TOKEN-unset}" "$KEPT"`, Env: map[string]string{"REQ_TOKEN": "c"}},
			check: func(t *testing.T, res *shellcap.Result) {
				if res.Stdout != "unset|unset|unset|k" {
					t.Errorf("stdout %q, want every *_TOKEN removed", res.Stdout)
				}
			},
		},
		{
			name:  "Policy",
			shell: shellcap.Options{Policy: policy.Rules{DeniedCommands: []string{"printf"}}},
			req:   shellcap.Request{Command: "printf x"},
			check: func(t *testing.T, res *shellcap.Result) {
				if !errors.Is(res.Err, shellcap.ErrDenied) {
					t.Errorf("Err %v, want ErrDenied:\n%s", res.Err, res.Text())
				}
			},
		},
		{
			name:  "MaxFileBytes",
			shell: shellcap.Options{MaxFileBytes: 4096},
			req:   shellcap.Request{Command: "head -c 100000 /dev/zero > /tmp/f; wc -c < /tmp/f; " + limitsScript},
			check: func(t *testing.T, res *shellcap.Result) {
				if !strings.HasPrefix(strings.TrimSpace(res.Stdout), "4096\n") || parseProbe(res.Stdout)["fsize"] != "4096" {
					t.Errorf("stdout %q, want a 4096-byte file and fsize=4096", res.Stdout)
				}
			},
		},
		{
			name:  "MemoryLimit",
			shell: shellcap.Options{MemoryLimit: 256 << 20},
			req:   shellcap.Request{Command: limitsScript},
			check: func(t *testing.T, res *shellcap.Result) {
				if got := parseProbe(res.Stdout)["as"]; got != "268435456" {
					t.Errorf("address space limit %q, want 268435456:\n%s", got, res.Text())
				}
			},
		},
		{
			name:  "CPUTime",
			shell: shellcap.Options{CPUTime: 1500 * time.Millisecond},
			opts:  func(o *Options) { o.Mode = Persistent }, // exec takes the container's limits too
			req:   shellcap.Request{Command: limitsScript},
			check: func(t *testing.T, res *shellcap.Result) {
				if got := parseProbe(res.Stdout)["cpu"]; got != "2" {
					t.Errorf("cpu limit %q, want 2 (1.5s rounded up):\n%s", got, res.Text())
				}
			},
		},
		{
			name:  "KillGrace",
			shell: shellcap.Options{KillGrace: 20 * time.Second},
			req:   shellcap.Request{Command: graceScript, Timeout: 3 * time.Second},
			check: checkGrace,
		},
		{
			name:  "KillGrace persistent",
			shell: shellcap.Options{KillGrace: 20 * time.Second},
			opts:  func(o *Options) { o.Mode = Persistent },
			req:   shellcap.Request{Command: graceScript, Timeout: 3 * time.Second},
			check: checkGrace,
		},
		{
			name:  "MaxProcesses",
			shell: shellcap.Options{MaxProcesses: 100},
			req:   shellcap.Request{Command: limitsScript},
			check: func(t *testing.T, res *shellcap.Result) {
				if got := parseProbe(res.Stdout)["nproc"]; got != "100" {
					t.Errorf("process limit %q, want 100:\n%s", got, res.Text())
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := testOptions(t)
			if c.opts != nil {
				c.opts(&o)
			}
			e := newExecutorOn(t, testShell(t, c.shell), o)
			if c.req.Timeout == 0 && c.shell.DefaultTimeout == 0 {
				c.req.Timeout = time.Minute
			}
			c.check(t, run(t, e, c.req))
		})
	}
}

// NoWorkspace mounts nothing: commands start in /tmp and the Shell's
// workspace is not there.
func TestNoWorkspace(t *testing.T) {
	o := testOptions(t)
	o.NoWorkspace = true
	e := newExecutor(t, o)
	res := run(t, e, shellcap.Request{Command: "pwd; ls /workspace | wc -l", Timeout: time.Minute})
	if res.Stdout != "/tmp\n0\n" || res.Cwd != "/tmp" {
		t.Errorf("stdout %q, Cwd %q, want /tmp and an empty /workspace", res.Stdout, res.Cwd)
	}
}

// A closed Shell admits nothing: Run is the host's error, no one is asked
// to approve, and no container starts.
func TestClosedShell(t *testing.T) {
	asked := 0
	sh := testShell(t, shellcap.Options{
		ApprovalMode: shellcap.ApproveAll,
		Approve: func(context.Context, shellcap.ApprovalRequest) (shellcap.Approval, error) {
			asked++
			return shellcap.Approval{Approved: true}, nil
		},
	})
	e := newExecutorOn(t, sh, testOptions(t))
	if err := sh.Close(); err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(t.Context(), shellcap.Request{Command: "echo hi", Timeout: time.Minute})
	if !errors.Is(err, shellcap.ErrClosed) || res != nil {
		t.Errorf("Run on a closed Shell = %v, %v; want ErrClosed", res, err)
	}
	if n := len(containersOf(t, e)); n != 0 || asked != 0 {
		t.Errorf("%d containers and %d approvals after a refused Run", n, asked)
	}
}
