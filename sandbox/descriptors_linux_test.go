package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap/internal/fdaudit"
)

// grantsFor is what a command of f under prof may reach through a
// descriptor.
func grantsFor(f *fixture, prof Profile) fdaudit.Grants {
	g := fdaudit.Grants{Readable: append([]string{f.ws, filepath.Dir(f.probe)}, systemReadable...)}
	if prof == WorkspaceWrite {
		g.Writable = []string{f.ws}
	}
	return g
}

// TestDescriptorsInside lists, from inside, the descriptors of a confined
// command started both ways under both profiles, with a memfd and a pipe
// among the launcher's extra files: every one is a pipe, a socket, a
// memfd, a null-like device or terminal, or a file the profile grants;
// with the network allowlist too.
func TestDescriptorsInside(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		for _, variant := range []string{string(WorkspaceWrite), string(ReadOnly), "allowlist"} {
			t.Run(mode+"/"+variant, func(t *testing.T) {
				f := newFixture(t)
				prof := Profile(variant)
				cfg := f.config(prof)
				if variant == "allowlist" {
					// The proxy's sockets live outside the command.
					prof = WorkspaceWrite
					cfg = f.config(prof)
					cfg.Network, cfg.Allow = NetworkAllowlist, []string{"example.com:443"}
				}
				var o outcome
				if mode == viaHelper {
					o = runIn(t, cfg, fdaudit.Script)
				} else {
					l, err := NewLauncher(cfg)
					if err != nil {
						t.Fatal(err)
					}
					defer l.Close()
					mfd, err := unix.MemfdCreate("extra", unix.MFD_CLOEXEC)
					if err != nil {
						t.Fatal(err)
					}
					memfd := os.NewFile(uintptr(mfd), "memfd")
					defer memfd.Close()
					pr, pw, err := os.Pipe()
					if err != nil {
						t.Fatal(err)
					}
					defer pr.Close()
					defer pw.Close()
					o = launchWith(t, l, f.ws, fdaudit.Script, memfd, pw)
				}
				es := fdaudit.Parse(o.stdout)
				t.Logf("inside:\n%s", o.stdout)
				if len(es) < 3 {
					t.Fatalf("listed %d descriptors: %q %q", len(es), o.stdout, o.stderr)
				}
				for _, bad := range fdaudit.Check(es, grantsFor(f, prof)) {
					t.Errorf("%s", bad)
				}
				f.untouched(t)
			})
		}
	}
}

// TestHostFileDescriptorRefused hands a confined command a descriptor to a
// host file or directory beyond the profile's grants (a writable file in
// the host's /tmp, one in shellcap's state directory, a host directory,
// and, under read-only, a writable workspace file): starting it is refused
// both ways and the file does not grow. Unconfined, the same script grows
// it, so the attack is real.
func TestHostFileDescriptorRefused(t *testing.T) {
	requireSandbox(t)
	type target struct {
		name   string
		open   func(f *fixture) *os.File
		isFile bool
	}
	openAt := func(t *testing.T, p string, flag int) *os.File {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		fl, err := os.OpenFile(p, flag, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fl.Close() })
		return fl
	}
	targets := []target{
		{"writable file in the host /tmp", func(f *fixture) *os.File {
			return openAt(t, filepath.Join(f.hostTmp, "grow.txt"), os.O_RDWR|os.O_CREATE)
		}, true},
		{"writable file in .shellcap", func(f *fixture) *os.File {
			return openAt(t, filepath.Join(f.ws, stateDirName, "run", "record"), os.O_WRONLY|os.O_CREATE)
		}, true},
		{"host directory", func(f *fixture) *os.File { return openAt(t, f.hostTmp, os.O_RDONLY) }, false},
		{"read-only file outside the roots", func(f *fixture) *os.File { return openAt(t, f.secret, os.O_RDONLY) }, false},
		{"read-only file in .shellcap", func(f *fixture) *os.File {
			return openAt(t, filepath.Join(f.ws, stateDirName, "jobs", "x", "stdout.log"), os.O_RDONLY|os.O_CREATE)
		}, false},
	}
	grow := "head -c 1048576 /dev/zero >&%d"
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			f := newFixture(t)
			if tg.isFile {
				// Calibration: plain bash with the same descriptor grows it.
				fl := tg.open(f)
				cmd := exec.Command("/bin/bash", "-c", strings.Replace(grow, "%d", "3", 1))
				cmd.ExtraFiles = []*os.File{fl}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("unconfined: %v %s", err, out)
				}
				if fi, _ := fl.Stat(); fi.Size() != 1<<20 {
					t.Fatalf("calibration: unconfined bash did not grow the file (%d bytes)", fi.Size())
				}
				_ = fl.Truncate(0)
			}
			for _, mode := range startModes {
				for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
					fl := tg.open(f)
					before, _ := fl.Stat()
					err := startWithFD(t, mode, f.config(prof), fl, grow)
					if err == nil || !strings.Contains(err.Error(), "descriptor") {
						t.Errorf("%s/%s: started with %s: %v", mode, prof, fl.Name(), err)
					}
					if fi, _ := fl.Stat(); fi.Mode().IsRegular() && fi.Size() != before.Size() {
						t.Errorf("%s/%s: the host file grew to %d bytes", mode, prof, fi.Size())
					}
				}
			}
		})
	}
	t.Run("workspace files and a terminal of its own", func(t *testing.T) {
		f := newFixture(t)
		_, term, _ := openPty(t)
		for _, mode := range startModes {
			if err := startWithFD(t, mode, f.config(WorkspaceWrite), term, "echo hi >&%d"); err != nil {
				t.Errorf("%s: a terminal that is not the host's own was refused: %v", mode, err)
			}
			ro := openAt(t, filepath.Join(f.ws, "README"), os.O_RDONLY)
			for _, prof := range []Profile{WorkspaceWrite, ReadOnly} {
				if err := startWithFD(t, mode, f.config(prof), ro, "cat <&%d >/dev/null"); err != nil {
					t.Errorf("%s/%s: a read-only workspace file was refused: %v", mode, prof, err)
				}
			}
			fl := openAt(t, filepath.Join(f.ws, "out-"+mode+".txt"), os.O_RDWR|os.O_CREATE)
			if err := startWithFD(t, mode, f.config(WorkspaceWrite), fl, grow); err != nil {
				t.Errorf("%s/workspace-write: a workspace file was refused: %v", mode, err)
			}
			if err := startWithFD(t, mode, f.config(ReadOnly), fl, grow); err == nil {
				t.Errorf("%s/read-only: started with a writable workspace file", mode)
			}
		}
	})
}

// startWithFD starts script (grow, with %d the descriptor's number) with
// fl as its stdout (helper) or its descriptor 3 (launcher), and waits.
func startWithFD(t *testing.T, mode string, cfg Config, fl *os.File, grow string) error {
	t.Helper()
	if mode == viaHelper {
		cmd := exec.Command("/bin/bash", "-c", strings.Replace(grow, "%d", "1", 1))
		cmd.Dir, cmd.Env, cmd.Stdout = cfg.Workspace, baseEnv(cfg.Workspace), fl
		if _, err := wrapCmd(cmd, cfg); err != nil {
			return err
		}
		err := cmd.Start()
		closeExtra(cmd)
		if err == nil {
			err = cmd.Wait()
		}
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return nil
	}
	l, err := NewLauncher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cmd := exec.Command("/bin/bash", "-c", strings.Replace(grow, "%d", "3", 1))
	cmd.Dir, cmd.Env = cfg.Workspace, baseEnv(cfg.Workspace)
	cmd.ExtraFiles = []*os.File{fl}
	p, err := l.Start(cmd)
	if err != nil {
		return err
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return nil
}
