package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// The unprivileged run repeats the escape and sanity tests as a user with
// no capabilities, in the same `go test` run: the sandbox must protect that
// user's own files and processes, not only root's, and it must work for
// the people who actually run agents.
//
// The ids are nobody:nogroup, the ids the container executor runs commands
// as. Unlike a made-up high uid (10000:10000 passes too) they have
// /etc/passwd and /etc/group entries on every distribution, so tools that
// look the user up (whoami, ssh, getpass) behave as for a real user. Other
// software may run as nobody on some machines; the tests only ever target
// processes they started themselves.
const (
	unprivUID = 65534
	unprivGID = 65534
	// unprivChildEnv marks the test binary the root run re-executes as
	// the unprivileged user.
	unprivChildEnv = "SHELLCAP_TEST_UNPRIVILEGED_CHILD"
	// identityPrefix starts the line in which the child reports who it is.
	identityPrefix = "shellcap-unprivileged-identity:"
)

// onlyAsRoot notes the escapes that mean less when the sandbox's user is
// not root: something other than the sandbox stops them first. Every other
// escape targets, in the unprivileged run, files, processes, sockets and
// terminals of the sandbox's own user: the interesting case, since file
// permissions do not protect them.
var onlyAsRoot = map[string]string{
	"write /etc":            "/etc belongs to root: file permissions stop any other user before the sandbox does",
	"mount tmpfs":           "mount(8) refuses a user other than root before calling the kernel; \"mount syscall\" reaches it",
	"umount protected path": "umount(8) refuses a user other than root before calling the kernel",
}

// unprivilegedTests are the top-level tests the unprivileged run repeats:
// every escape test, the sanity list and the other confinement checks that
// involve no root-only setup.
func unprivilegedTests() []string {
	ts := []string{
		"TestEscapesUnprivileged", // in the child: reports its identity
		"TestEscapes", "TestLeakedDescriptor", "TestUnixPathSocket", "TestMissingHooksDir",
		"TestSanity", "TestGitInProtectedRepo", "TestPrivateTmp", "TestReadOnlyProfile",
		"TestNetworkFull", "TestNoSurvivors", "TestRlimits", "TestHostPty",
		"TestDegradedLandlock", "TestDegradedUserNamespaces", "TestDegradedEscapes",
		"TestDescriptorsInside", "TestHostFileDescriptorRefused",
		"TestBoundaryCalibration", "TestPrivateDev", "TestWorkspaceOwnership", "TestProcessLimit", "TestTmpSize", "TestProxyBounds",
		"TestDoctorProtections", "TestLandlockRules", "TestProxyBudget",
		"TestGitObeyed", "TestGitPerCommand", "TestStateDirHidden", "TestEscapesCalibrated",
		"TestProtectFinds", "TestProtectUnreadable", "TestGitEverydayWork", "TestProtectManyRepositories",
	}
	if goBuildRuns() {
		ts = append(ts, "TestSanityGoBuild")
	}
	return ts
}

// goBuildRuns reports whether TestSanityGoBuild runs rather than skips.
func goBuildRuns() bool {
	_, err := os.Stat("/usr/local/go/bin/go")
	return !testing.Short() && err == nil
}

// TestEscapesUnprivileged re-executes the test binary as nobody:nogroup to
// run the escape tests, the sanity list and the other confinement tests
// there, and checks that the child passed every one of them (the same
// subtests as the root run, none skipped) and really ran without
// privileges. In the child, it reports the child's identity and that the
// escape targets belong to the same user.
func TestEscapesUnprivileged(t *testing.T) {
	if os.Getenv(unprivChildEnv) != "" {
		reportIdentity(t)
		return
	}
	if os.Geteuid() != 0 {
		t.Skipf("running as uid %d: this run of the escape tests already is the unprivileged run", os.Geteuid())
	}
	if err := canSwitchUser(); err != nil {
		cannotSwitch(t, err)
	}
	requireSandbox(t)
	u := newUnprivRun(t)
	out, err := u.runAll(t)
	child := parseChild(out)
	if child.sandbox != "" && child.sandbox != "ok" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the sandbox cannot be enforced for uid %d: %s\n%s", unprivUID, child.sandbox, tail(out, 60))
		}
		t.Skipf("the sandbox cannot be enforced for uid %d here: %s", unprivUID, child.sandbox)
	}
	if err != nil {
		t.Fatalf("unprivileged run failed: %v\n%s", err, failures(out))
	}
	child.check(t)
	if t.Failed() {
		t.Logf("child output:\n%s", tail(out, 80))
	}
}

// canSwitchUser reports why this process cannot run a child as another
// user and give it a directory of its own, or nil when it can.
func canSwitchUser() error {
	st, err := procStatus("self")
	if err != nil {
		return err
	}
	eff, err := strconv.ParseUint(st["CapEff"], 16, 64)
	if err != nil {
		return fmt.Errorf("CapEff %q: %v", st["CapEff"], err)
	}
	var missing []string
	for _, c := range []struct {
		bit  uint
		name string
	}{{0, "CAP_CHOWN"}, {6, "CAP_SETGID"}, {7, "CAP_SETUID"}} {
		if eff&(1<<c.bit) == 0 {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("uid 0 without %s", strings.Join(missing, ", "))
	}
	return nil
}

// cannotSwitch fails the test under CI, where the unprivileged run is part
// of the proof, and skips it elsewhere.
func cannotSwitch(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("cannot run the escape tests as uid %d under CI: %v", unprivUID, err)
	}
	t.Skipf("cannot run the escape tests as uid %d: %v", unprivUID, err)
}

// unprivRun is the world of the unprivileged child: a copy of the test
// binary in a root-owned directory every user may read and execute, and a
// home, a TMPDIR, a coverage directory and a runtime directory under /run,
// all owned by the child's user.
type unprivRun struct {
	bin                      string
	home, tmp, cover, runDir string
}

func newUnprivRun(t *testing.T) *unprivRun {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// go test builds the binary under a 0700 directory of root's: copy it
	// to a directory the child may traverse but not write, so that it
	// cannot edit the binary its sandbox helper runs from.
	binDir := tempDir(t, "/var/tmp", "shellcap-unpriv-bin-")
	must(t, os.Chmod(binDir, 0o755))
	u := &unprivRun{bin: filepath.Join(binDir, filepath.Base(self))}
	copyFile(t, self, u.bin, 0o755)

	base := tempDir(t, "/var/tmp", "shellcap-unpriv-")
	must(t, os.Chown(base, unprivUID, unprivGID))
	u.home = ownedDir(t, filepath.Join(base, "home"))
	u.tmp = ownedDir(t, filepath.Join(base, "tmp"))
	u.cover = ownedDir(t, filepath.Join(base, "cover"))
	// A runtime directory like /run/user/UID: TestUnixPathSocket puts a
	// socket there, where the sandbox must not reach it.
	u.runDir = tempDir(t, "/run", "shellcap-user-"+strconv.Itoa(unprivUID)+"-")
	must(t, os.Chown(u.runDir, unprivUID, unprivGID))
	return u
}

// runAll runs the unprivileged tests in two children at once, TestEscapes
// in one and the rest in the other, and returns their combined output and
// the first failure. The children share only directories in which every
// test makes its own; running them side by side takes about a quarter off
// the wall time on two cores.
func (u *unprivRun) runAll(t *testing.T) (string, error) {
	t.Helper()
	timeout := 10 * time.Minute
	if d, ok := t.Deadline(); ok && time.Until(d) < timeout+time.Minute {
		timeout = time.Until(d) - time.Minute
		if timeout < time.Minute {
			t.Fatalf("the test binary's -timeout leaves %v: too little for the unprivileged run", time.Until(d))
		}
	}
	var rest []string
	for _, name := range unprivilegedTests() {
		if name != "TestEscapes" {
			rest = append(rest, name)
		}
	}
	shards := [][]string{{"TestEscapes"}, rest}
	results := make([]childResult, len(shards))
	var wg sync.WaitGroup
	for i, tests := range shards {
		wg.Go(func() { results[i] = u.run(tests, timeout) })
	}
	wg.Wait()
	var outs []string
	var err error
	for i, r := range results {
		if r.start != nil {
			if errors.Is(r.start, syscall.EPERM) {
				// setuid or setgid refused in the forked child.
				cannotSwitch(t, r.start)
			}
			t.Fatalf("start the unprivileged run: %v", r.start)
		}
		outs = append(outs, r.out)
		if r.wait != nil && err == nil {
			err = fmt.Errorf("%s: %w", strings.Join(shards[i], ", "), r.wait)
		}
	}
	return strings.Join(outs, "\n"), err
}

// childResult is how one child ended: it did not start, or it ran and
// printed out and exited as wait says.
type childResult struct {
	out         string
	start, wait error
}

// run runs the tests in a child as nobody:nogroup.
func (u *unprivRun) run(tests []string, timeout time.Duration) childResult {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{
		"-test.run=^(" + strings.Join(tests, "|") + ")$",
		"-test.count=1", "-test.v", "-test.timeout=" + (timeout - 30*time.Second).String(),
	}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if testing.CoverMode() != "" {
		// The child's coverage goes to a directory of its own and is
		// dropped: the parent's profile covers the root run only.
		args = append(args, "-test.gocoverdir="+u.cover)
	}
	cmd := exec.CommandContext(ctx, u.bin, args...)
	cmd.Dir = u.home
	cmd.Env = u.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:    true,
		Credential: &syscall.Credential{Uid: unprivUID, Gid: unprivGID, Groups: []uint32{}},
	}
	// The child's process group holds its host processes too (the
	// fixtures' sleep): a hung run takes them all down.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return childResult{start: err}
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("no result after %v: %w", timeout, err)
	} else if err != nil {
		// A child that died without its cleanups may leave fixture
		// processes in its group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return childResult{out: out.String(), wait: err}
}

// env is the child's whole environment: nothing of root's is passed on
// but CI and GORACE. GOFLAGS is left out on purpose: the only go command
// the child runs (TestSanityGoBuild) sets every variable it needs.
func (u *unprivRun) env() []string {
	env := []string{
		unprivChildEnv + "=1",
		"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + u.home, "TMPDIR=" + u.tmp, "XDG_RUNTIME_DIR=" + u.runDir,
		"GOCOVERDIR=" + u.cover, "LANG=C", "USER=nobody", "LOGNAME=nobody",
	}
	for _, k := range []string{"CI", "GORACE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// reportIdentity runs in the child: it prints the child's ids and
// capabilities, whether the sandbox can be enforced for it, and who owns
// the escape targets (a fixture's files and host process), and fails when
// the child is privileged.
func reportIdentity(t *testing.T) {
	st, err := procStatus("self")
	if err != nil {
		t.Fatal(err)
	}
	c := Doctor()
	sandbox := "ok"
	if !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		sandbox = strings.ReplaceAll(strings.TrimSpace(c.Text()), "\n", "; ")
	}
	// Print early: the parent reads the sandbox state even when the rest
	// of the report cannot be made.
	fmt.Printf("%s sandbox=%q\n", identityPrefix, sandbox)
	f := newFixture(t)
	var fi syscall.Stat_t
	must(t, syscall.Stat(f.secret, &fi))
	host, err := procStatus(strconv.Itoa(f.hostPID))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s uid=%d euid=%d gid=%d egid=%d groups=%q capinh=%s capprm=%s capeff=%s capamb=%s target_owner=%d host_process_uid=%q\n",
		identityPrefix, os.Getuid(), os.Geteuid(), os.Getgid(), os.Getegid(), st["Groups"],
		st["CapInh"], st["CapPrm"], st["CapEff"], st["CapAmb"], fi.Uid, host["Uid"])
	if host["Uid"] != st["Uid"] {
		t.Errorf("the fixture's host process runs as %q, the child as %q", host["Uid"], st["Uid"])
	}
	if os.Geteuid() == 0 || st["CapEff"] != "0000000000000000" {
		t.Errorf("the unprivileged run is privileged: uid %d, CapEff %s", os.Geteuid(), st["CapEff"])
	}
}

// procStatus reads /proc/PID/status into a map of its fields.
func procStatus(pid string) (map[string]string, error) {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// childReport is what the parent learned from the child's verbose output.
type childReport struct {
	identity map[string]string
	sandbox  string
	passed   map[string]bool
	skipped  []string
	failed   []string
}

func parseChild(out string) *childReport {
	r := &childReport{identity: map[string]string{}, passed: map[string]bool{}}
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, identityPrefix); ok {
			for _, kv := range strings.Fields(rest) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					if uq, err := strconv.Unquote(v); err == nil {
						v = uq
					}
					r.identity[k] = v
				}
			}
			// sandbox= may hold spaces: take it from the line.
			if i := strings.Index(rest, "sandbox="); i >= 0 {
				if uq, err := strconv.Unquote(strings.TrimSpace(rest[i+len("sandbox="):])); err == nil {
					r.sandbox = uq
				}
			}
			continue
		}
		for _, res := range []string{"PASS", "SKIP", "FAIL"} {
			rest, ok := strings.CutPrefix(line, "--- "+res+": ")
			if !ok {
				continue
			}
			name := rest
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				name = rest[:i]
			}
			switch res {
			case "PASS":
				r.passed[name] = true
			case "SKIP":
				r.skipped = append(r.skipped, name)
			case "FAIL":
				r.failed = append(r.failed, name)
			}
		}
	}
	return r
}

// check asserts that the child ran as nobody:nogroup without capabilities,
// against targets of its own, and passed, without a skip, every test and
// every subtest the root run has.
func (r *childReport) check(t *testing.T) {
	t.Helper()
	id := func(k string) string { return r.identity[k] }
	want := strconv.Itoa(unprivUID)
	wantG := strconv.Itoa(unprivGID)
	if id("uid") != want || id("euid") != want || id("gid") != wantG || id("egid") != wantG {
		t.Errorf("child ids: uid=%q euid=%q gid=%q egid=%q, want %d:%d", id("uid"), id("euid"), id("gid"), id("egid"), unprivUID, unprivGID)
	}
	if id("groups") != "" {
		t.Errorf("child has supplementary groups %q", id("groups"))
	}
	for _, k := range []string{"capinh", "capprm", "capeff", "capamb"} {
		if id(k) != "0000000000000000" {
			t.Errorf("child %s = %q, want no capabilities", k, id(k))
		}
	}
	if id("target_owner") != want {
		t.Errorf("the escape targets belong to uid %q, not the child's %d", id("target_owner"), unprivUID)
	}
	if f := strings.Fields(id("host_process_uid")); len(f) == 0 || f[0] != want {
		t.Errorf("the fixture's host process runs as %q, not uid %d", id("host_process_uid"), unprivUID)
	}
	if len(r.failed) > 0 {
		t.Errorf("failed in the unprivileged run: %s", strings.Join(r.failed, ", "))
	}
	if len(r.skipped) > 0 {
		t.Errorf("skipped in the unprivileged run: %s", strings.Join(r.skipped, ", "))
	}
	for _, name := range unprivilegedTests() {
		if !r.passed[name] {
			t.Errorf("%s did not pass in the unprivileged run", name)
		}
	}
	for _, group := range expectedSubtests(t) {
		ran := 0
		for _, name := range group {
			if r.passed[name] {
				ran++
			} else {
				t.Errorf("%s did not pass in the unprivileged run", name)
			}
		}
		t.Logf("unprivileged run: %d of %d %s subtests passed", ran, len(group), strings.SplitN(group[0], "/", 2)[0])
	}
}

// expectedSubtests are the full names of the subtests that the tests with
// subtests run as root, one list per test: every escape under each confined
// profile, every sanity case, every escape tried without namespaces.
func expectedSubtests(t *testing.T) [][]string {
	t.Helper()
	var escapes, sanity, degraded []string
	seen := map[string]bool{}
	for _, mode := range startModes {
		for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
			for _, e := range (&fixture{}).escapes() {
				name := "TestEscapes/" + mode + "/" + string(prof) + "/" + subtestName(e.name)
				if seen[name] {
					// escapeNamed would run the first one twice.
					t.Errorf("two escapes are named %q", e.name)
				}
				seen[name] = true
				escapes = append(escapes, name)
			}
		}
		for _, c := range sanityCases() {
			sanity = append(sanity, "TestSanity/"+mode+"/"+subtestName(c.name))
		}
	}
	for _, name := range degradedEscapes() {
		degraded = append(degraded, "TestDegradedEscapes/"+subtestName(name))
	}
	return [][]string{escapes, sanity, degraded}
}

// subtestName is the name the testing package prints for a subtest named
// s: spaces become underscores and unprintable runes are quoted.
func subtestName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// failures returns what the child printed for each test that failed
// (from its "=== RUN" line to the next test's), or its tail when no test
// failed.
func failures(out string) string {
	failed := map[string]bool{}
	for _, name := range parseChild(out).failed {
		failed[name] = true
	}
	var b strings.Builder
	printing := false
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(trimmed, "=== RUN"); ok {
			printing = failed[strings.TrimSpace(name)]
		} else if strings.HasPrefix(trimmed, "=== ") {
			printing = false
		}
		if printing || strings.HasPrefix(trimmed, "--- FAIL") {
			b.WriteString(line + "\n")
		}
	}
	if len(failed) == 0 {
		return tail(out, 80)
	}
	return b.String()
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tempDir makes a directory under parent that the test removes at the end.
func tempDir(t *testing.T, parent, pattern string) string {
	t.Helper()
	d, err := os.MkdirTemp(parent, pattern)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// ownedDir makes the directory path, mode 0700, owned by the child's user.
func ownedDir(t *testing.T, path string) string {
	t.Helper()
	must(t, os.Mkdir(path, 0o700))
	must(t, os.Chown(path, unprivUID, unprivGID))
	return path
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	must(t, dst.Close())
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
