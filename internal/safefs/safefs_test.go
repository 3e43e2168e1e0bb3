//go:build linux

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// both runs t under openat2 and under the O_NOFOLLOW walk.
func both(t *testing.T, f func(t *testing.T)) {
	for _, walkOnly := range []bool{false, true} {
		name := "openat2"
		if walkOnly {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			old := noOpenat2.Load()
			noOpenat2.Store(walkOnly)
			defer noOpenat2.Store(old)
			f(t)
		})
	}
}

func TestOpenStateRefusesPlantedLinks(t *testing.T) {
	both(t, func(t *testing.T) {
		outside := t.TempDir()
		cases := []struct {
			name  string
			plant func(ws string)
		}{
			{"state dir is a symlink", func(ws string) { must(t, os.Symlink(outside, filepath.Join(ws, StateDirName))) }},
			{"state dir is a dangling symlink", func(ws string) {
				must(t, os.Symlink(filepath.Join(outside, "new"), filepath.Join(ws, StateDirName)))
			}},
			{"state dir is a file", func(ws string) { must(t, os.WriteFile(filepath.Join(ws, StateDirName), nil, 0o600)) }},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ws := t.TempDir()
				c.plant(ws)
				d, err := OpenState(ws, true)
				if err == nil {
					d.Close()
					t.Fatal("a planted state directory was accepted")
				}
				if !errors.Is(err, ErrUnsafe) {
					t.Fatalf("error %v does not wrap ErrUnsafe", err)
				}
				if ents, _ := os.ReadDir(outside); len(ents) != 0 {
					t.Fatalf("something was created outside: %v", ents)
				}
			})
		}
	})
}

func TestOpenStateReplacesPlantedGitignore(t *testing.T) {
	both(t, func(t *testing.T) {
		outside := t.TempDir()
		ws := t.TempDir()
		st := filepath.Join(ws, StateDirName)
		must(t, os.Mkdir(st, 0o700))
		target := filepath.Join(outside, "chosen")
		must(t, os.Symlink(target, filepath.Join(st, ".gitignore")))
		d, err := OpenState(ws, true)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("the host created the file the link named: %v", err)
		}
		fi, err := os.Lstat(filepath.Join(st, ".gitignore"))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf(".gitignore is not a regular file: %v %v", fi, err)
		}
		if b, _ := os.ReadFile(filepath.Join(st, ".gitignore")); string(b) != "*\n" {
			t.Fatalf(".gitignore holds %q", b)
		}
	})
}

func TestOpenFileRefuses(t *testing.T) {
	both(t, func(t *testing.T) {
		outside := t.TempDir()
		secret := filepath.Join(outside, "secret")
		must(t, os.WriteFile(secret, []byte("secret"), 0o600))
		cases := []struct {
			name  string
			plant func(d string)
			flag  int
		}{
			{"final symlink", func(d string) { must(t, os.Symlink(secret, filepath.Join(d, "f"))) }, os.O_RDONLY},
			{"final symlink, create", func(d string) { must(t, os.Symlink(secret, filepath.Join(d, "f"))) }, os.O_WRONLY | os.O_CREATE | os.O_TRUNC},
			{"dangling symlink, create", func(d string) { must(t, os.Symlink(filepath.Join(outside, "new"), filepath.Join(d, "f"))) }, os.O_WRONLY | os.O_CREATE},
			{"hard link, truncate", func(d string) { must(t, os.Link(secret, filepath.Join(d, "f"))) }, os.O_WRONLY | os.O_CREATE | os.O_TRUNC},
			{"FIFO", func(d string) { must(t, unix.Mkfifo(filepath.Join(d, "f"), 0o600)) }, os.O_RDONLY},
			{"directory", func(d string) { must(t, os.Mkdir(filepath.Join(d, "f"), 0o700)) }, os.O_RDONLY},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				c.plant(dir)
				root, err := OpenRoot(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer root.Close()
				f, err := root.OpenFile("f", c.flag, 0o600)
				if err == nil {
					f.Close()
					t.Fatal("opened")
				}
				if !errors.Is(err, ErrUnsafe) {
					t.Fatalf("error %v does not wrap ErrUnsafe", err)
				}
				if b, _ := os.ReadFile(secret); string(b) != "secret" {
					t.Fatalf("the secret changed: %q", b)
				}
				if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
					t.Fatal("a file was created outside")
				}
			})
		}
	})
}

func TestSymlinkInTheMiddle(t *testing.T) {
	both(t, func(t *testing.T) {
		outside := t.TempDir()
		must(t, os.WriteFile(filepath.Join(outside, "log"), []byte("secret"), 0o600))
		dir := t.TempDir()
		must(t, os.Symlink(outside, filepath.Join(dir, "jobs")))
		root, err := OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		if _, err := root.ReadFile("jobs/log", 100); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("read through a symlinked directory: %v", err)
		}
		if _, err := root.MkdirAll("jobs/x", 0o700); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("mkdir through a symlinked directory: %v", err)
		}
		if err := root.WriteFileAtomic("jobs/log", []byte("x"), 0o600); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("write through a symlinked directory: %v", err)
		}
		if err := root.RemoveAll("jobs/log"); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("remove through a symlinked directory: %v", err)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "log")); string(b) != "secret" {
			t.Fatalf("the file outside changed: %q", b)
		}
		// RemoveAll on the link removes the link, not what it names.
		if err := root.RemoveAll("jobs"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(outside, "log")); err != nil {
			t.Fatal("RemoveAll followed the link")
		}
	})
}

func TestForeignOwnerRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file away")
	}
	both(t, func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		must(t, os.WriteFile(p, []byte("x"), 0o644))
		must(t, os.Chown(p, 65534, 65534))
		root, err := OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		if _, err := root.ReadFile("f", 10); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("read a file owned by someone else: %v", err)
		}
	})
}

func TestRoundTrip(t *testing.T) {
	both(t, func(t *testing.T) {
		ws := t.TempDir()
		st, err := OpenState(ws, true)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		jobs, err := st.MkdirAll("jobs/abc", 0o700)
		if err != nil {
			t.Fatal(err)
		}
		defer jobs.Close()
		must(t, jobs.WriteFileAtomic("status.json", []byte("{}"), 0o600))
		must(t, jobs.WriteFileAtomic("status.json", []byte("{1}"), 0o600))
		if b, err := jobs.ReadFile("status.json", 10); err != nil || string(b) != "{1}" {
			t.Fatalf("%q %v", b, err)
		}
		must(t, jobs.Mkfifo("stdin", 0o600))
		r, err := jobs.OpenFIFO("stdin", os.O_RDONLY)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		names, err := jobs.ReadDirNames()
		if err != nil || len(names) != 2 {
			t.Fatalf("%v %v", names, err)
		}
		must(t, st.RemoveAll("jobs"))
		if _, err := os.Lstat(filepath.Join(ws, StateDirName, "jobs")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("not removed")
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
