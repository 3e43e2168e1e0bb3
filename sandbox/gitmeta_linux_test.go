package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestProtectFinds checks what the scan protects in small trees, case by
// case: each case lays files out and names paths that must be found (and
// how) and paths that must not.
func TestProtectFinds(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  map[string]metaKind
		not   []string
	}{
		{"repository", map[string]string{".git/config": "[core]\n", ".git/HEAD": "ref: refs/heads/main\n"},
			map[string]metaKind{".git/config": metaFile, ".git/hooks": metaDir, ".git/info": metaDir}, nil},
		{"nested deep in node_modules", map[string]string{"node_modules/a/b/c/d/e/.git/config": ""},
			map[string]metaKind{"node_modules/a/b/c/d/e/.git/config": metaFile}, nil},
		{"pointer and separate git directory", map[string]string{"w/.git": "gitdir: ../store/w.git\n", "store/w.git/config": "", "store/w.git/HEAD": "x"},
			map[string]metaKind{"w/.git": metaFile, "store/w.git/config": metaFile, "store/w.git/hooks": metaDir}, nil},
		{"bare", map[string]string{"srv.git/HEAD": "ref: refs/heads/main\n", "srv.git/objects/x": "", "srv.git/refs/heads/x": "", "srv.git/config": ""},
			map[string]metaKind{"srv.git/config": metaFile, "srv.git/hooks": metaDir}, []string{"srv.git/objects"}},
		{"commondir", map[string]string{".git/config": "", ".git/commondir": "../common\n", "common/config": "", "common/HEAD": "x"},
			map[string]metaKind{".git/commondir": metaFile, "common/config": metaFile}, nil},
		{"submodule and worktree", map[string]string{".git/config": "", ".git/modules/a/b/HEAD": "x", ".git/modules/a/b/config": "",
			".git/worktrees/wt/HEAD": "x", ".git/worktrees/wt/commondir": "../..\n", ".git/worktrees/wt/config.worktree": ""},
			map[string]metaKind{".git/modules/a/b/config": metaFile, ".git/worktrees/wt/commondir": metaFile, ".git/worktrees/wt/config.worktree": metaFile}, nil},
		{"hooksPath, include and a program, parsed as git does", map[string]string{
			".git/config": "[core]\n\thooksPath = \"my hooks\" ; note\n\tfsmonitor = ./bin/fsmon --x\n[include]\n\tpath = ../inc.cfg\n",
			"my hooks/x":  "", "bin/fsmon": "", "inc.cfg": "[core]\n\thooksPath = second\n", "second/y": ""},
			map[string]metaKind{"my hooks": metaDir, "bin/fsmon": metaFile, "inc.cfg": metaFile, "second": metaDir}, []string{"my hooks\" ; note"}},
		{"agent configuration anywhere", map[string]string{"a/b/c/d/e/f/.claude/settings.json": "", "lefthook.yml": "", ".gemini/settings.json": ""},
			map[string]metaKind{"a/b/c/d/e/f/.claude": metaName, "lefthook.yml": metaName, ".gemini": metaName}, []string{".gemini/settings.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			for p, text := range c.files {
				mustWrite(t, filepath.Join(ws, p), text, 0o644)
			}
			s := newScanner([]string{ws}, nil)
			s.create = true
			if err := s.scan(ws); err != nil {
				t.Fatal(err)
			}
			got := map[string]metaKind{}
			for _, f := range s.found {
				rel, _ := filepath.Rel(ws, f.path)
				got[rel] = f.kind
			}
			for p, k := range c.want {
				if gk, ok := got[p]; !ok || gk != k {
					t.Errorf("%s: got kind %v (found %v), want %v; all: %v", p, gk, ok, k, got)
				}
			}
			for _, p := range c.not {
				if _, ok := got[p]; ok {
					t.Errorf("%s found", p)
				}
			}
		})
	}
}

// TestProtectUnreadable: a directory the scan cannot read is protected
// whole, never skipped (as a user to whom chmod 000 applies).
func TestProtectUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a chmod 000 directory; the unprivileged run covers this")
	}
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "r/.git/config"), "", 0o644)
	must(t, os.Chmod(filepath.Join(ws, "r/.git"), 0))
	must(t, os.Mkdir(filepath.Join(ws, "closed"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(ws, "r/.git"), 0o755); os.Chmod(filepath.Join(ws, "closed"), 0o755) })
	s := newScanner([]string{ws}, nil)
	if err := s.scan(ws); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"r/.git", "closed"} {
		if !slices.ContainsFunc(s.found, func(f metaPath) bool { return f.path == filepath.Join(ws, want) && f.kind == metaWhole }) {
			t.Errorf("%s not protected whole: %v", want, s.found)
		}
	}
}

// TestProtectListingCache: a scan reuses the listing of a directory that
// has not changed, and a directory changed right after a scan is listed
// again (its times changed), so what appeared there is found.
func TestProtectListingCache(t *testing.T) {
	ws := t.TempDir()
	mustWrite(t, filepath.Join(ws, "a/b/c/file"), "", 0o644)
	time.Sleep(2 * settleTime)
	g, err := newGuard(ws, []string{ws}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	if len(g.dirs) < 4 {
		t.Fatalf("settled directories not kept: %v", g.dirs)
	}
	mustWrite(t, filepath.Join(ws, "a/b/c/.git/hooks/pre-commit"), "#!/bin/sh\n", 0o755)
	moved, err := g.after()
	if err != nil || !slices.Contains(moved, "a/b/c/.git/hooks/pre-commit") {
		t.Fatalf("a hook planted in a cached directory: quarantined %q, %v", moved, err)
	}
}
