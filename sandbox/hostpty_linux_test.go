package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHostPty checks that a sandboxed command cannot reach a terminal that
// belongs to its own user outside the sandbox (an ssh session, the
// terminal the agent runs in): the sandbox has its own devpts instance, so
// the host terminal's path names nothing there, and a terminal the command
// opens for itself still works. Both ways of starting.
func TestHostPty(t *testing.T) {
	requireSandbox(t)
	for _, mode := range startModes {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			master, term, pts := openPty(t)
			if _, err := master.Write([]byte("typed-" + secretText + "\n")); err != nil {
				t.Fatal(err)
			}
			// timeout only keeps a blocked read from hanging the test when
			// the line is there after all; it decides nothing.
			o := runVia(t, mode, f.config(WorkspaceWrite), "echo injected-by-sandbox > "+pts+"; timeout 10 head -n1 "+pts)
			if strings.Contains(o.stdout, secretText) {
				t.Errorf("read what was typed on the host terminal %s: %q", pts, o.stdout)
			}
			if strings.Contains(terminalOutput(t, master, term), "injected-by-sandbox") {
				t.Errorf("wrote to the host terminal %s", pts)
			}
			f.untouched(t)
			o = runVia(t, mode, f.config(WorkspaceWrite), `/usr/bin/python3 -c 'import os, pty; m, s = pty.openpty(); os.write(s, b"own-terminal\n"); print(os.read(m, 64).decode().strip(), os.ttyname(s))'`)
			if o.code != 0 || !strings.HasPrefix(o.stdout, "own-terminal /dev/pts/") {
				t.Errorf("a terminal of its own: exit %d %q %s", o.code, o.stdout, o.stderr)
			}
		})
	}
}

// openPty opens a pseudo-terminal pair on the host and keeps the terminal
// side open, as a shell would, until the test ends. It returns the master,
// the terminal side and the terminal's path.
func openPty(t *testing.T) (master, term *os.File, path string) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path = "/dev/pts/" + strconv.Itoa(n)
	term, err = os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	return master, term, path
}

// terminalOutput returns what was written to the terminal so far: it
// writes an end mark on the terminal side and reads the master up to it.
func terminalOutput(t *testing.T, master, term *os.File) string {
	t.Helper()
	const end = "end-of-terminal-output"
	if _, err := term.Write([]byte(end + "\n")); err != nil {
		t.Fatal(err)
	}
	// The deadline only keeps a broken terminal from hanging the test.
	master.SetReadDeadline(time.Now().Add(time.Minute))
	var out []byte
	buf := make([]byte, 4096)
	for !strings.Contains(string(out), end) {
		n, err := master.Read(buf)
		if err != nil {
			t.Fatalf("read the terminal: %v (got %q)", err, out)
		}
		out = append(out, buf[:n]...)
	}
	return string(out)
}
