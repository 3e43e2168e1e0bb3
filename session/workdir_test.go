//go:build linux

package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/session"
)

// TestVanishedDirectory deletes the session's directory, or replaces it
// with a file, between calls: the next call is refused with a message
// naming it, and the one after runs in the workspace root.
func TestVanishedDirectory(t *testing.T) {
	for _, replace := range []bool{false, true} {
		s := newSession(t, session.Options{})
		root := run(t, s, "mkdir -p sub/deeper && cd sub/deeper && pwd").Stdout
		dir := strings.TrimSpace(root)
		root = filepath.Dir(filepath.Dir(dir))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		how := "no longer exists"
		if replace {
			if err := os.WriteFile(dir, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			how = "is no longer a directory"
		}
		res := run(t, s, "echo ran; ls")
		if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || res.Stdout != "" ||
			!strings.Contains(res.Text(), "The session's directory "+dir+" "+how) || !strings.Contains(res.Text(), "workspace root "+root) {
			t.Fatalf("err %v:\n%s", res.Err, res.Text())
		}
		want(t, run(t, s, "pwd"), "[stdout]\n"+root+"\n")
		want(t, run(t, s, "cd sub && basename $PWD"), "[stdout]\nsub\n")
		want(t, run(t, s, "basename $PWD"), "[stdout]\nsub\n")
	}
}

// TestVanishedWorkspace deletes the whole workspace: every call is refused
// naming it, and the session does not hang or restart.
func TestVanishedWorkspace(t *testing.T) {
	s := newSession(t, session.Options{})
	root := strings.TrimSpace(run(t, s, "pwd").Stdout)
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		res := run(t, s, "echo ran")
		if !errors.Is(res.Err, shellcap.ErrWorkdirGone) || res.Restarted || !strings.Contains(res.Text(), "The workspace root "+root+" no longer exists") {
			t.Fatalf("call %d: err %v:\n%s", i+1, res.Err, res.Text())
		}
	}
}
