package container

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"go.uber.org/goleak"
)

// testRootFS is a busybox root filesystem shared by the tests, built once.
var (
	rootfsOnce sync.Once
	rootfsDir  string
	rootfsErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if rootfsDir != "" {
		_ = os.RemoveAll(filepath.Dir(rootfsDir))
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// requirePodman skips the test when podman, runc or a static busybox is
// missing, or podman cannot run the busybox rootfs here, unless CI=true,
// where it fails.
func requirePodman(t *testing.T) {
	t.Helper()
	podmanOnce.Do(func() { podmanErr = checkPodman() })
	if podmanErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("container tests need podman, runc and busybox-static in CI: %v", podmanErr)
		}
		t.Skipf("container tests skipped: %v", podmanErr)
	}
}

var (
	podmanOnce sync.Once
	podmanErr  error
)

func checkPodman() error {
	for _, bin := range []string{"podman", "runc", "/bin/busybox"} {
		if _, err := exec.LookPath(bin); err != nil {
			return err
		}
	}
	f, err := elf.Open("/bin/busybox")
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return errors.New("/bin/busybox is dynamically linked; install busybox-static")
		}
	}
	return nil
}

// buildRootFS makes a minimal root filesystem from the static busybox:
// /bin/busybox with one symlink per applet, /tmp, /workspace, and an
// /etc/passwd and /etc/group that know nobody (65534).
func buildRootFS(dir string) error {
	for _, d := range []string{"bin", "tmp", "etc", "workspace", "proc", "dev", "sys"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	if err := os.Chmod(filepath.Join(dir, "tmp"), 0o1777); err != nil {
		return err
	}
	bb, err := os.ReadFile("/bin/busybox")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "busybox"), bb, 0o755); err != nil {
		return err
	}
	list, err := exec.Command("/bin/busybox", "--list").Output()
	if err != nil {
		return err
	}
	for _, applet := range strings.Fields(string(list)) {
		if applet == "busybox" || strings.Contains(applet, "/") {
			continue
		}
		if err := os.Symlink("busybox", filepath.Join(dir, "bin", applet)); err != nil && !os.IsExist(err) {
			return err
		}
	}
	files := map[string]string{
		"etc/passwd": "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n",
		"etc/group":  "root:x:0:\nnogroup:x:65534:\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func testRootFS(t *testing.T) string {
	t.Helper()
	rootfsOnce.Do(func() {
		parent, err := os.MkdirTemp("", "shellcap-rootfs-")
		if err != nil {
			rootfsErr = err
			return
		}
		rootfsDir = filepath.Join(parent, "rootfs")
		rootfsErr = buildRootFS(rootfsDir)
	})
	if rootfsErr != nil {
		t.Fatalf("building the busybox rootfs: %v", rootfsErr)
	}
	return rootfsDir
}

// testOptions returns options for podman with runc over the busybox rootfs.
func testOptions(t *testing.T) Options {
	t.Helper()
	requirePodman(t)
	return Options{
		Engine:     "podman",
		EngineArgs: []string{"--runtime", "runc", "--cgroup-manager=cgroupfs"},
		RootFS:     testRootFS(t),
	}
}

// testShell returns a Shell over a fresh workspace the container user can
// enter (0755), closed at cleanup. A zero Workspace in so means that one.
func testShell(t *testing.T, so shellcap.Options) *shellcap.Shell {
	t.Helper()
	if so.Workspace == "" {
		so.Workspace = workspace(t, 0o755)
	}
	sh, err := shellcap.New(so)
	if err != nil {
		t.Fatalf("shellcap.New: %v", err)
	}
	t.Cleanup(func() { _ = sh.Close() })
	return sh
}

// newExecutor creates an executor over a default Shell (testShell) and
// checks at cleanup that Close left no container of it behind.
func newExecutor(t *testing.T, o Options) *Executor {
	t.Helper()
	return newExecutorOn(t, testShell(t, shellcap.Options{}), o)
}

// newExecutorOn is newExecutor over the Shell sh.
func newExecutorOn(t *testing.T, sh *shellcap.Shell, o Options) *Executor {
	t.Helper()
	e, err := New(sh, o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if left := containersOf(t, e); len(left) > 0 {
			t.Errorf("containers left behind after Close: %v", left)
		}
		if _, err := os.Stat(e.privateDir); !os.IsNotExist(err) {
			t.Errorf("private directory %s still exists (err %v)", e.privateDir, err)
		}
	})
	return e
}

// containersOf lists every container, running or not, that e created.
func containersOf(t *testing.T, e *Executor) []string {
	t.Helper()
	args := append(append([]string(nil), e.opts.EngineArgs...),
		"ps", "--all", "--filter", "label="+labelKey+"="+e.id, "--format", "{{.Names}}")
	out, err := exec.Command(e.opts.Engine, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman ps: %v: %s", err, out)
	}
	return strings.Fields(string(out))
}

// waitNoContainers polls until e has no container left, within a
// generous bound (the engine may still be tearing one down).
func waitNoContainers(t *testing.T, e *Executor) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		left := containersOf(t, e)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("containers still present: %v", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// run runs a command and fails the test on a host error.
func run(t *testing.T, e *Executor, req shellcap.Request) *shellcap.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := e.Run(ctx, req)
	if err != nil {
		t.Fatalf("Run(%q): %v", req.Command, err)
	}
	return res
}

// workspace returns a workspace directory the container user can use.
func workspace(t *testing.T, mode os.FileMode) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
