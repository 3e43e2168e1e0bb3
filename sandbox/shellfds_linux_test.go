package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/fdaudit"
	"github.com/shellcap/shellcap/sandbox"
)

// TestShellSandboxDescriptors lists, from inside a sandboxed Shell's
// command with PersistCwd (whose directory record travels on descriptor
// 63), every descriptor the command holds: pipes and null-like devices
// only, none a host file. Writing 8 MiB into descriptor 63, as a command
// can, grows no host file, and cd still sticks afterwards.
func TestShellSandboxDescriptors(t *testing.T) {
	c := sandbox.Doctor()
	if !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot enforce the sandbox:\n%s", c.Text())
		}
		t.Skipf("machine cannot enforce the full sandbox:\n%s", c.Text())
	}
	ws := t.TempDir()
	sh, err := shellcap.New(shellcap.Options{Workspace: ws, PersistCwd: true, Sandbox: sandbox.Confiner(sandbox.Config{})})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run := func(command string) *shellcap.Result {
		t.Helper()
		res, err := sh.Run(ctx, shellcap.Request{Command: command})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(fdaudit.Script)
	es := fdaudit.Parse(res.Stdout)
	t.Logf("inside:\n%s", res.Stdout)
	saw63 := false
	for _, e := range es {
		saw63 = saw63 || e.FD == 63
	}
	if len(es) < 4 || !saw63 {
		t.Fatalf("listed %d descriptors, 63 among them: %v\n%s", len(es), saw63, res.Text())
	}
	for _, bad := range fdaudit.Check(es, fdaudit.Grants{Writable: []string{ws}}) {
		t.Errorf("%s", bad)
	}
	t0 := time.Now()
	r := run("timeout 2 head -c 8M /dev/zero >&63")
	t.Logf("write took %v: %s", time.Since(t0), r.Text())
	if n := treeSize(t, filepath.Join(ws, ".shellcap")); n > 1<<20 {
		t.Errorf("the state directory grew to %d bytes", n)
	}
	// A host file as the request's stdin reaches the command as a pipe.
	in := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(in, []byte("from-the-host\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err = sh.Run(ctx, shellcap.Request{Command: fdaudit.Script + "; cat", Stdin: f})
	if err != nil {
		t.Fatal(err)
	}
	es = fdaudit.Parse(res.Stdout)
	if len(es) == 0 || es[0].FD != 0 || !strings.HasPrefix(es[0].Target, "pipe:[") || !strings.HasSuffix(res.Stdout, "from-the-host\n") {
		t.Errorf("stdin from a host file: %s", res.Text())
	}
	if res := run("mkdir -p sub && cd sub"); res.ExitCode != 0 {
		t.Fatalf("cd: %s", res.Text())
	}
	if res := run("pwd"); strings.TrimSpace(res.Stdout) != filepath.Join(ws, "sub") {
		t.Fatalf("cd did not stick after the write: %s", res.Text())
	}
}

// treeSize is the total size of the regular files under dir.
func treeSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
