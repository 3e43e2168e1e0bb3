//go:build unix

package shellcap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestKeptOutputsNeverFollowPlantedLinks plants what a confined command
// could leave in a workspace whose .shellcap did not exist when its
// sandbox started: .shellcap itself as a symlink to a directory outside,
// .shellcap/output as one, and a dangling .shellcap/.gitignore symlink
// naming a file outside. Keeping a truncated output then writes nothing
// outside the workspace: the output is either kept in a real state
// directory (the dangling .gitignore is replaced, never followed) or not
// kept, and the result says so.
func TestKeptOutputsNeverFollowPlantedLinks(t *testing.T) {
	cases := []struct {
		name  string
		plant func(ws, outside string)
		kept  bool
	}{
		{".shellcap is a symlink", func(ws, outside string) {
			mustSymlink(t, outside, filepath.Join(ws, ".shellcap"))
		}, false},
		{".shellcap/output is a symlink", func(ws, outside string) {
			mustMkdir(t, filepath.Join(ws, ".shellcap"))
			mustSymlink(t, outside, filepath.Join(ws, ".shellcap", "output"))
		}, false},
		{"dangling .gitignore symlink", func(ws, outside string) {
			mustMkdir(t, filepath.Join(ws, ".shellcap"))
			mustSymlink(t, filepath.Join(outside, "chosen-by-the-command"), filepath.Join(ws, ".shellcap", ".gitignore"))
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			sh := newShell(t, shellcap.Options{Workspace: ws, MaxOutputChars: 200})
			c.plant(ws, outside)
			res := run(t, sh, shellcap.Request{Command: "seq 100000"})
			if !res.Truncated {
				t.Fatalf("not truncated: %s", res.Text())
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Fatalf("the host wrote outside the workspace: %v", ents)
			}
			switch {
			case c.kept && (res.StdoutFile == "" || !strings.HasPrefix(res.StdoutFile, filepath.Join(ws, ".shellcap", "output")+"/")):
				t.Fatalf("output not kept in the state directory: %q\n%s", res.StdoutFile, res.Text())
			case !c.kept && (res.StdoutFile != "" || !strings.Contains(strings.Join(res.Notes, "\n"), "could not be kept")):
				t.Fatalf("kept through a planted symlink: %q\n%s", res.StdoutFile, res.Text())
			}
			if c.kept {
				fi, err := os.Lstat(filepath.Join(ws, ".shellcap", ".gitignore"))
				if err != nil || !fi.Mode().IsRegular() {
					t.Fatalf(".gitignore is not a regular file: %v %v", fi, err)
				}
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
