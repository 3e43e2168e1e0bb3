package sandbox

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// bigWorkspace makes a workspace of files files laid out like a
// dependency tree (node_modules/pkgN/lib/dM/fK), a repository at its top
// and one repository nested in a package deep down, and returns it.
func bigWorkspace(t *testing.T, files int) string {
	t.Helper()
	ws := tempDir(t, "/var/tmp", "shellcap-big-")
	const perDir, dirsPerPkg = 100, 10
	pkgs := files / (perDir * dirsPerPkg)
	name := make([]byte, 0, 256)
	for p := 0; p < pkgs; p++ {
		for d := 0; d < dirsPerPkg; d++ {
			dir := filepath.Join(ws, "node_modules", "pkg"+strconv.Itoa(p), "lib", "d"+strconv.Itoa(d))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			dfd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			for f := 0; f < perDir; f++ {
				name = strconv.AppendInt(append(name[:0], 'f'), int64(f), 10)
				fd, err := unix.Openat(dfd, string(name), unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				unix.Close(fd)
			}
			unix.Close(dfd)
		}
	}
	mustWrite(t, filepath.Join(ws, ".git/config"), "[core]\n", 0o644)
	deep := filepath.Join(ws, "node_modules", "pkg"+strconv.Itoa(pkgs/2), "lib", "d3")
	mustWrite(t, filepath.Join(deep, ".git/config"), "[core]\n", 0o644)
	mustWrite(t, filepath.Join(deep, ".git/hooks/post-checkout"), "#!/bin/sh\n", 0o755)
	return ws
}

// TestProtectMillionFiles builds a workspace of a million files (set
// SCTEST_SANDBOX_FIGURES=1; it takes a while to make) and logs how long a
// sandbox takes to start in it, next to a raw directory walk of the same
// tree: the start must not fail, and the repository nested deep in the
// dependency tree must be protected.
func TestProtectMillionFiles(t *testing.T) {
	if os.Getenv("SCTEST_SANDBOX_FIGURES") == "" {
		t.Skip("set SCTEST_SANDBOX_FIGURES=1 to build a 1,000,000-file workspace and measure")
	}
	requireSandbox(t)
	files := 1_000_000
	if n, err := strconv.Atoi(os.Getenv("SCTEST_PROTECT_FILES")); err == nil && n > 0 {
		files = n
	}
	made := time.Now()
	ws := bigWorkspace(t, files)
	t.Logf("made %d files in %v", files, time.Since(made))

	s := time.Now()
	sc := newScanner([]string{ws}, nil)
	if err := sc.scan(ws); err != nil {
		t.Fatal(err)
	}
	scan := time.Since(s)
	var dirs int
	s = time.Now()
	filepath.WalkDir(ws, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs++
		}
		return nil
	})
	raw := time.Since(s)

	deep := ""
	for _, f := range sc.found {
		if strings.Contains(f.path, "node_modules") && strings.HasSuffix(f.path, "/hooks") {
			deep = f.path
		}
	}
	if deep == "" {
		t.Fatalf("the nested repository's hooks were not found: %v", sc.found)
	}
	for _, mode := range startModes {
		s = time.Now()
		o := runVia(t, mode, Config{Workspace: ws}, "echo pwned > "+deep+"/pre-commit; echo pwned >> "+deep+"/post-checkout; echo ok")
		took := time.Since(s)
		if o.stdout != "ok\n" {
			t.Fatalf("%s: %q %s", mode, o.stdout, o.stderr)
		}
		if !strings.Contains(o.stderr, "Read-only") {
			t.Errorf("%s: the nested repository's hooks were writable: %s", mode, o.stderr)
		}
		t.Logf("%s: sandbox start and one command in a %d-file workspace: %v", mode, files, took)
	}
	t.Logf("%d files in %d directories: protection scan %v; filepath.WalkDir over the same tree %v (%.2fx)", files, dirs, scan, raw, float64(scan)/float64(raw))

	// A launcher's start, and its per-command protection when nothing
	// changed (the watches say so) and when a command wrote a file (a
	// full scan on each side).
	s = time.Now()
	l, err := NewLauncher(Config{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	start := time.Since(s)
	for _, c := range []struct{ what, script string }{{"nothing changed", "true"}, {"a file written", "echo x > new-file"}} {
		s = time.Now()
		o := launchIn(t, l, ws, c.script)
		q, err := l.AfterCommand()
		if o.code != 0 || err != nil || len(q) > 0 {
			t.Fatalf("%s: exit %d %v %q %s", c.what, o.code, err, q, o.stderr)
		}
		t.Logf("launcher in a %d-file workspace: start %v; a command and its check, %s: %v", files, start, c.what, time.Since(s))
	}

	// The host's check on its own: a full scan, then a rescan after one
	// file changed (unchanged directories' listings reused).
	time.Sleep(2 * settleTime)
	s = time.Now()
	g, err := newGuard(ws, []string{ws}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	full := time.Since(s)
	mustWrite(t, filepath.Join(ws, "node_modules/pkg1/lib/d1/new"), "x", 0o644)
	s = time.Now()
	if q, err := g.after(); err != nil || len(q) > 0 {
		t.Fatalf("%q %v", q, err)
	}
	again := time.Since(s)
	s = time.Now()
	if _, err := g.after(); err != nil {
		t.Fatal(err)
	}
	quiet := time.Since(s)
	t.Logf("host check in a %d-file workspace: first scan %v; after one file changed %v (%.2fx); nothing changed %v", files, full, again, float64(again)/float64(full), quiet)

}

// TestProtectManyRepositories: a workspace with thousands of nested
// repositories protects them all, though their list outgrows a pipe (the
// policy then travels in a sealed memfd), both ways of starting.
func TestProtectManyRepositories(t *testing.T) {
	requireSandbox(t)
	ws := t.TempDir()
	long := strings.Repeat("a-package-with-a-rather-long-name-", 3)
	const repos = 3000
	for i := 0; i < repos; i++ {
		d := filepath.Join(ws, "node_modules", long+strconv.Itoa(i), ".git")
		must(t, os.MkdirAll(filepath.Join(d, "hooks"), 0o755))
		must(t, os.MkdirAll(filepath.Join(d, "info"), 0o755))
		must(t, os.WriteFile(filepath.Join(d, "config"), nil, 0o644))
	}
	cmd := exec.Command("/bin/true")
	pol, _, err := plan(cmd, Config{Workspace: ws}, probe())
	if err != nil {
		t.Fatal(err)
	}
	if pol.Protect, err = scanHost(pol); err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(pol); len(data) <= pipeMax {
		t.Fatalf("the policy is %d bytes: too small to need a memfd", len(data))
	}
	last := filepath.Join(ws, "node_modules", long+strconv.Itoa(repos-1), ".git")
	for _, mode := range startModes {
		o := runVia(t, mode, Config{Workspace: ws}, "echo x > "+last+"/hooks/pre-commit; echo x >> "+last+"/config; echo done")
		if o.stdout != "done\n" || strings.Count(o.stderr, "Read-only file system") != 2 {
			t.Errorf("%s: %q %s", mode, o.stdout, o.stderr)
		}
	}
}
