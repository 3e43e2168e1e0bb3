package envprobe

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
)

// newShell returns a Shell on a temporary workspace whose commands carry
// the test mark.
func newShell(t *testing.T, opts shellcap.Options) *shellcap.Shell {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	opts.Env[testMarkName] = testMark
	if opts.KillGrace == 0 {
		opts.KillGrace = 100 * time.Millisecond
	}
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// fakeBin writes executable scripts into a new directory and returns it.
func fakeBin(t *testing.T, scripts map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func toolByName(t *testing.T, s *Snapshot, name string) Tool {
	t.Helper()
	for _, tl := range s.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %+v", name, s.Tools)
	return Tool{}
}

var versionLike = regexp.MustCompile(`^v?[0-9]+(\.[0-9]+)+`)

func TestProbeRealTools(t *testing.T) {
	for _, tool := range []string{"git", "go", "bash", "uname"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	sh := newShell(t, shellcap.Options{})
	snap, err := Probe(testContext(t), sh, Options{Tools: []string{"git", "go", "no-such-tool-envprobe"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if snap.Shell != "bash" || !versionLike.MatchString(snap.ShellVersion) {
		t.Errorf("shell = %q %q, want bash and a version", snap.Shell, snap.ShellVersion)
	}
	if want := map[string]string{"linux": "Linux", "darwin": "Darwin"}[runtime.GOOS]; snap.OS != want {
		t.Errorf("OS = %q, want %q", snap.OS, want)
	}
	if snap.Kernel == "" || snap.Arch == "" {
		t.Errorf("kernel %q, arch %q: want both", snap.Kernel, snap.Arch)
	}
	if snap.Workdir != sh.Workspace() {
		t.Errorf("workdir = %q, want %q", snap.Workdir, sh.Workspace())
	}
	for _, name := range []string{"git", "go"} {
		tl := toolByName(t, snap, name)
		if !tl.Found || tl.Error != "" || !versionLike.MatchString(tl.Version) {
			t.Errorf("%s: %+v, want found with a version", name, tl)
		}
	}
	if goVer := toolByName(t, snap, "go").Version; "go"+goVer != runtime.Version() && !strings.HasPrefix(runtime.Version(), "go"+goVer) {
		t.Logf("go on PATH is %s, the test binary was built with %s", goVer, runtime.Version())
	}
	if tl := toolByName(t, snap, "no-such-tool-envprobe"); tl.Found || tl.Error != "" {
		t.Errorf("missing tool: %+v, want not found without error", tl)
	}
	text := snap.Text()
	for _, want := range []string{"Shell: bash ", "OS: " + snap.OS + " ", "Working directory: " + sh.Workspace(), "Tools: git ", "not found: no-such-tool-envprobe"} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() lacks %q:\n%s", want, text)
		}
	}
}

func TestProbeFakeTools(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	bin := fakeBin(t, map[string]string{
		"faketool":   `echo "faketool version 1.2.3-beta (build 7)"`,
		"deniedtool": `echo "deniedtool 9.9"`,
		"errtool":    `echo "errtool 4.5" >&2`,
		"failtool":   `echo "usage: failtool" >&2; exit 3`,
		"oddtool":    `echo "release Hydrogen"`,
		"hangtool":   `touch "` + marker + `.hang"; exec sleep 600`,
		"gone":       `exit 0`,
	})
	if err := os.Chmod(filepath.Join(bin, "gone"), 0o644); err != nil {
		t.Fatal(err)
	}
	sh := newShell(t, shellcap.Options{
		Env:    map[string]string{"PATH": bin + ":" + os.Getenv("PATH")},
		Policy: policy.Rules{DeniedCommands: []string{"deniedtool"}},
	})
	snap, err := Probe(testContext(t), sh, Options{
		Tools:   []string{"faketool", "errtool", "failtool", "oddtool", "deniedtool", "gone", "x;touch " + marker, "faketool"},
		Timeout: time.Minute, // generous: nothing here should time out, however loaded the machine
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Tool{
		{Name: "faketool", Version: "1.2.3-beta", Found: true},
		{Name: "errtool", Version: "4.5", Found: true},
		{Name: "failtool", Found: true, Error: "failtool --version exited with status 3"},
		{Name: "oddtool", Version: "release Hydrogen", Found: true},
		{Name: "deniedtool", Version: "9.9", Found: true}, // the policy is not asked about probes
		{Name: "gone", Found: true, Error: "not executable"},
		{Name: "x;touch " + marker, Error: "not a program name; not run"},
	}
	if len(snap.Tools) != len(want) {
		t.Fatalf("tools = %+v, want %d entries (the repeat dropped)", snap.Tools, len(want))
	}
	for i, w := range want {
		got := snap.Tools[i]
		if got != w {
			t.Errorf("tool %d = %+v, want %+v", i, got, w)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an invalid tool name was run")
	}
	text := snap.Text()
	for _, want := range []string{
		"Tools: faketool 1.2.3-beta, errtool 4.5, failtool (failtool --version exited with status 3), oddtool release Hydrogen, deniedtool 9.9, gone (not executable)",
		"; not checked: x;touch",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Text() lacks %q:\n%s", want, text)
		}
	}
}

func TestProbeTimeout(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	bin := fakeBin(t, map[string]string{"hangtool": `touch "` + marker + `"; exec sleep 600`})
	sh := newShell(t, shellcap.Options{Env: map[string]string{"PATH": bin + ":" + os.Getenv("PATH")}})
	snap, err := Probe(testContext(t), sh, Options{Tools: []string{"hangtool"}, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Tools[0]; got != (Tool{Name: "hangtool", Error: "timed out after 500ms"}) {
		t.Fatalf("hangtool = %+v", got)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("the hanging tool did not run")
	}
	if !strings.Contains(snap.Text(), "not checked: hangtool (timed out after 500ms)") {
		t.Errorf("Text() = %s", snap.Text())
	}
	// TestMain checks that the sleep did not outlive the probe.
}

func TestProbePythonFallback(t *testing.T) {
	uname, err := exec.LookPath("uname")
	if err != nil {
		t.Skip("no uname")
	}
	bin := fakeBin(t, map[string]string{"python": `echo "Python 2.7.18"`})
	if err := os.Symlink(uname, filepath.Join(bin, "uname")); err != nil {
		t.Fatal(err)
	}
	sh := newShell(t, shellcap.Options{Env: map[string]string{"PATH": bin}})
	snap, err := Probe(testContext(t), sh, Options{Tools: []string{"python3", "git"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	want := []Tool{{Name: "python", Version: "2.7.18", Found: true}, {Name: "git"}}
	if len(snap.Tools) != 2 || snap.Tools[0] != want[0] || snap.Tools[1] != want[1] {
		t.Fatalf("tools = %+v, want %+v", snap.Tools, want)
	}
	if snap.OS == "" || snap.Kernel == "" {
		t.Errorf("uname not used: %+v", snap)
	}

	// python3 present: python is not probed in its place.
	bin3 := fakeBin(t, map[string]string{"python3": `echo "Python 3.11.7"`, "python": `echo "Python 2.7.18"`})
	sh = newShell(t, shellcap.Options{Env: map[string]string{"PATH": bin3}})
	snap, err = Probe(testContext(t), sh, Options{Tools: []string{"python3"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Tools[0]; got != (Tool{Name: "python3", Version: "3.11.7", Found: true}) {
		t.Fatalf("python3 = %+v", got)
	}
	// Neither: reported as python3, not found. uname is missing too, so
	// the Go runtime's names stand in.
	sh = newShell(t, shellcap.Options{Env: map[string]string{"PATH": t.TempDir()}})
	snap, err = Probe(testContext(t), sh, Options{Tools: []string{"python3"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Tools[0]; got != (Tool{Name: "python3"}) {
		t.Fatalf("no python: %+v", got)
	}
	if snap.OS != runtimeOS() || snap.Arch != runtime.GOARCH || snap.Kernel != "" {
		t.Fatalf("fallback system = %q %q %q", snap.OS, snap.Kernel, snap.Arch)
	}
}

// TestProbeSkipsPolicyAndApproval: the probes are the host's own fixed
// commands: a policy that would refuse them or ask about them is not
// consulted, and no approver is called, even under ApproveAll.
func TestProbeSkipsPolicyAndApproval(t *testing.T) {
	for name, opts := range map[string]shellcap.Options{
		"allowlist": {Policy: policy.Rules{AllowedCommands: []string{"true"}}},
		"ask":       {Policy: policy.Rules{Approval: true}},
		"approve-all": {ApprovalMode: shellcap.ApproveAll, Approve: func(context.Context, shellcap.ApprovalRequest) (shellcap.Approval, error) {
			t.Error("a probe asked the approver")
			return shellcap.Approval{}, nil
		}},
	} {
		t.Run(name, func(t *testing.T) {
			sh := newShell(t, opts)
			snap, err := Probe(testContext(t), sh, Options{Tools: []string{"git"}, Timeout: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if snap.Shell != "bash" || snap.OS != "Linux" && runtime.GOOS == "linux" || snap.Kernel == "" {
				t.Errorf("shell and system probes did not run: %+v", snap)
			}
			if _, err := exec.LookPath("git"); err == nil {
				if tl := snap.Tools[0]; !tl.Found || tl.Error != "" || !versionLike.MatchString(tl.Version) {
					t.Errorf("git = %+v", tl)
				}
			}
		})
	}
}

// TestProbeRunsConfined: a probe runs with the Shell's limits (here a
// 1,024-byte file-size limit binds what it writes) and environment.
func TestProbeRunsConfined(t *testing.T) {
	ws := t.TempDir()
	bin := fakeBin(t, map[string]string{
		"bigtool": `head -c 8192 /dev/zero > "` + filepath.Join(ws, "big") + `"; echo "bigtool 1.0 $PROBE_SEEN"`,
	})
	sh := newShell(t, shellcap.Options{Workspace: ws, MaxFileBytes: 1024,
		Env: map[string]string{"PATH": bin + ":" + os.Getenv("PATH"), "PROBE_SEEN": "yes"}})
	snap, err := Probe(testContext(t), sh, Options{Tools: []string{"bigtool"}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if tl := snap.Tools[0]; !tl.Found || tl.Version != "1.0" {
		t.Errorf("bigtool = %+v", tl)
	}
	if fi, err := os.Stat(filepath.Join(ws, "big")); err != nil || fi.Size() > 1024 {
		t.Errorf("the file-size limit did not bind the probe: %v %v", fi, err)
	}
}

func TestProbeDefaults(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	snap, err := Probe(testContext(t), sh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range snap.Tools {
		names = append(names, tl.Name)
	}
	if len(names) != 5 || names[0] != "git" || names[1] != "go" || names[2] != "node" ||
		(names[3] != "python3" && names[3] != "python") || names[4] != "docker" {
		t.Fatalf("default tools = %v", names)
	}
	t.Logf("\n%s", snap.Text())

	snap, err = Probe(testContext(t), sh, Options{Tools: []string{}})
	if err != nil || len(snap.Tools) != 0 || strings.Contains(snap.Text(), "Tools:") {
		t.Fatalf("no tools asked: %+v, %v", snap, err)
	}
}

func TestProbeHostErrors(t *testing.T) {
	if _, err := Probe(t.Context(), nil, Options{}); err == nil {
		t.Error("nil Shell accepted")
	}

	// A Shell that cannot run commands: every probe is not checked, with
	// the reason, and Probe does not fail.
	sh := newShell(t, shellcap.Options{ReadOnly: true})
	snap, err := Probe(testContext(t), sh, Options{Tools: []string{"git"}})
	if err != nil {
		t.Fatalf("read-only workspace: err = %v", err)
	}
	if snap == nil || snap.Workdir != sh.Workspace() || snap.OS != runtimeOS() || snap.Tools[0].Found ||
		!strings.Contains(snap.Tools[0].Error, "read-only") || !strings.Contains(snap.Text(), "not checked: git (") {
		t.Fatalf("read-only workspace: snapshot %+v\n%s", snap, snap.Text())
	}

	sh = newShell(t, shellcap.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	snap, err = Probe(ctx, sh, Options{Tools: []string{"git"}})
	if !errors.Is(err, context.Canceled) || snap == nil {
		t.Fatalf("cancelled: %+v, %v", snap, err)
	}
}

func TestValidToolName(t *testing.T) {
	for _, ok := range []string{"git", "python3", "g++", "clang-17", "x.y_z", "7z"} {
		if !ValidToolName(ok) {
			t.Errorf("ValidToolName(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "-v", ".x", "a b", "a;b", "$(id)", "/bin/ls", "a\x00", "é", strings.Repeat("a", 65)} {
		if ValidToolName(bad) {
			t.Errorf("ValidToolName(%q) = true", bad)
		}
	}
}

func TestVersionOf(t *testing.T) {
	for in, want := range map[string]string{
		"git version 2.39.5":                    "2.39.5",
		"go version go1.26.8 linux/amd64":       "1.26.8",
		"v20.20.2":                              "v20.20.2",
		"Python 3.11.7":                         "3.11.7",
		"Docker version 24.0.5, build ced0996":  "24.0.5",
		"5.2.15(1)-release":                     "5.2.15",
		"5.9":                                   "5.9",
		"rustc 1.80.0-nightly (abc 2024-05-01)": "1.80.0-nightly",
		"no digits here":                        "no digits here",
		"":                                      "",
		strings.Repeat("x", 100):                strings.Repeat("x", 60) + "…",
		"clang version 17.0.6+really (Debian 1:1)": "17.0.6+really",
	} {
		if got := versionOf(in); got != want {
			t.Errorf("versionOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestText(t *testing.T) {
	s := &Snapshot{
		Shell: "bash", ShellVersion: "5.2.15", OS: "Linux", Kernel: "6.18.0", Arch: "x86_64", Workdir: "/w",
		Tools: []Tool{
			{Name: "git", Version: "2.39.5", Found: true},
			{Name: "go", Version: "1.26.8", Found: true},
			{Name: "node", Version: "v20.20.2", Found: true},
			{Name: "python3", Version: "3.11.7", Found: true},
			{Name: "docker"},
		},
	}
	want := "Shell: bash 5.2.15\nOS: Linux 6.18.0 x86_64\nWorking directory: /w\n" +
		"Tools: git 2.39.5, go 1.26.8, node v20.20.2, python3 3.11.7; not found: docker"
	if got := s.Text(); got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}

	s = &Snapshot{Shell: "sh", OS: "Linux", Arch: "aarch64", Workdir: "/w", Tools: []Tool{
		{Name: "make", Found: true},
		{Name: "slow", Error: "timed out after 5s"},
		{Name: "bad", Error: "refused by policy: " + strings.Repeat("long reason ", 20)},
	}}
	got := s.Text()
	want = "Shell: sh\nOS: Linux aarch64\nWorking directory: /w\nTools: make; not checked: slow (timed out after 5s), bad (refused by policy: long reason"
	if !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "…)") || strings.Count(got, "\n") != 3 {
		t.Errorf("Text() = %q", got)
	}
	if got := (&Snapshot{}).Text(); got != "" {
		t.Errorf("empty snapshot: %q", got)
	}
}

// failingStarter cannot start anything, like a host out of descriptors.
type failingStarter struct{ err error }

func (f failingStarter) start(string, *os.File, *os.File) (*os.Process, error) { return nil, f.err }
func (failingStarter) watch(int) func()                                        { return func() {} }

// TestProbeHostFailureIsNotChecked: a probe that cannot be started (too
// many open files) is reported as not checked with the reason; the
// snapshot is still made and Probe does not fail.
func TestProbeHostFailureIsNotChecked(t *testing.T) {
	err := &os.SyscallError{Syscall: "pipe2", Err: syscall.EMFILE}
	snap, perr := probe(testContext(t), failingStarter{err}, "/w", Options{Tools: []string{"git", "go"}})
	if perr != nil {
		t.Fatal(perr)
	}
	want := "Tools: not checked: git (too many open files (raise the limit, e.g. ulimit -n)), go (too many open files"
	if text := snap.Text(); !strings.Contains(text, want) || snap.Workdir != "/w" || snap.OS != runtimeOS() {
		t.Fatalf("snapshot:\n%s", text)
	}
}
