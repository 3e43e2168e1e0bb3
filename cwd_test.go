package shellcap_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

func TestPersistCwd(t *testing.T) {
	ws := t.TempDir()
	sh := newShell(t, shellcap.Options{Workspace: ws, PersistCwd: true})
	root := sh.Workspace()
	sub := filepath.Join(root, "sub")
	pwd := func() string {
		t.Helper()
		return strings.TrimSpace(run(t, sh, shellcap.Request{Command: "pwd -P"}).Stdout)
	}

	res := run(t, sh, shellcap.Request{Command: "mkdir -p sub/deeper && cd sub"})
	if res.Cwd != sub {
		t.Fatalf("Cwd after cd = %q, want %q", res.Cwd, sub)
	}
	if got := pwd(); got != sub {
		t.Fatalf("cd did not stick: pwd = %q, want %q", got, sub)
	}

	steps := []struct {
		name    string
		command string
		want    string
	}{
		{"output cannot spoof the directory", "printf '%s\\n' / /etc " + root + "; echo __cwd__=/", sub},
		{"failed command keeps the old directory", "cd deeper && false", sub},
		{"directory outside the workspace is refused", "cd /tmp", sub},
		{"symlink leading outside is refused", "ln -sfn / escape && cd escape", sub},
		{"a pwd function cannot lie", "pwd() { echo /etc; }; cd deeper", filepath.Join(sub, "deeper")},
		{"exit 0 still records", "cd .. && exit 0", sub},
		{"PWD assignment cannot lie", "PWD=/etc", sub},
		{"back to root", "cd " + root, root},
	}
	for _, st := range steps {
		run(t, sh, shellcap.Request{Command: st.command})
		if got := pwd(); got != st.want {
			t.Fatalf("%s: pwd = %q, want %q", st.name, got, st.want)
		}
	}

	// A directory that disappears: the next call is refused, naming it,
	// and the one after runs in the root.
	run(t, sh, shellcap.Request{Command: "cd sub/deeper"})
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}
	res = run(t, sh, shellcap.Request{Command: "pwd -P"})
	if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || res.Stdout != "" ||
		!strings.Contains(res.Text(), filepath.Join(sub, "deeper")+" no longer exists, so the command was not run") {
		t.Fatalf("after removal: Err %v, text:\n%s", res.Err, res.Text())
	}
	res = run(t, sh, shellcap.Request{Command: "pwd -P"})
	if res.Err != nil || strings.TrimSpace(res.Stdout) != root {
		t.Fatalf("the call after the refusal: pwd = %q (%v), want the root %q", res.Stdout, res.Err, root)
	}
	if matches, _ := filepath.Glob(filepath.Join(root, ".shellcap", "run", "*")); len(matches) != 0 {
		t.Fatalf("capture files left behind: %v", matches)
	}
}

func TestWithoutPersistCwdEveryCommandStartsAtRoot(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	run(t, sh, shellcap.Request{Command: "mkdir -p a && cd a"})
	if got := strings.TrimSpace(run(t, sh, shellcap.Request{Command: "pwd -P"}).Stdout); got != sh.Workspace() {
		t.Fatalf("pwd = %q, want %q", got, sh.Workspace())
	}
}

func TestRequestDir(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	root := sh.Workspace()
	if err := os.MkdirAll(filepath.Join(root, "pkg"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "plain"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(run(t, sh, shellcap.Request{Command: "pwd -P", Dir: "pkg"}).Stdout); got != filepath.Join(root, "pkg") {
		t.Fatalf("Dir pkg: pwd = %q", got)
	}
	tests := []struct {
		dir  string
		kind error
	}{
		{"gone", shellcap.ErrWorkdirGone},
		{"plain", shellcap.ErrWorkdirGone},
		{"..", shellcap.ErrWorkdirOutside},
		{"/", shellcap.ErrWorkdirOutside},
	}
	for _, tt := range tests {
		res := run(t, sh, shellcap.Request{Command: "true", Dir: tt.dir})
		if !errors.Is(res.Err, tt.kind) {
			t.Errorf("Dir %q: Err = %v, want %v", tt.dir, res.Err, tt.kind)
		}
		if res.Text() == "" || res.Text() == "(no output)" {
			t.Errorf("Dir %q: no message for the model", tt.dir)
		}
	}
}

// TestDeletedWorkingDirectory removes the directory between the check and
// the start: the model still gets a message, not a crash.
func TestDeletedWorkingDirectory(t *testing.T) {
	sh := newShell(t, shellcap.Options{PersistCwd: true})
	run(t, sh, shellcap.Request{Command: "mkdir d && cd d"})
	// Replace the remembered directory with a file.
	d := filepath.Join(sh.Workspace(), "d")
	if err := os.Remove(d); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, sh, shellcap.Request{Command: "touch here"})
	if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || !strings.Contains(res.Text(), d+" is no longer a directory, so the command was not run") {
		t.Fatalf("after the directory became a file: Err %v, text:\n%s", res.Err, res.Text())
	}
	if _, err := os.Stat(filepath.Join(sh.Workspace(), "here")); err == nil {
		t.Fatal("the refused command ran in the root")
	}
	res = run(t, sh, shellcap.Request{Command: "pwd -P"})
	if res.Err != nil || strings.TrimSpace(res.Stdout) != sh.Workspace() {
		t.Fatalf("the call after the refusal: pwd = %q (%v)", res.Stdout, res.Err)
	}
}

// TestEchoedDirectoryIsCut: a requested directory is repeated in the
// refusal only up to textfmt.EchoMax characters.
func TestEchoedDirectoryIsCut(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	long := strings.Repeat("d", 5000)
	res := run(t, sh, shellcap.Request{Command: "true", Dir: long})
	if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || strings.Contains(res.Text(), long[:200]) || !strings.Contains(res.Text(), "…") {
		t.Fatalf("Err %v, text of %d bytes: %.300s", res.Err, len(res.Text()), res.Text())
	}
}
