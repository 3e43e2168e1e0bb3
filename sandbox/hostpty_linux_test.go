package sandbox

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHostPty documents a gap: the helper keeps the host's devpts mount and
// /dev/pts is a writable Landlock root, so a sandboxed command can open a
// terminal that belongs to its own user outside the sandbox (an ssh
// session, the terminal the agent runs in), read what is typed there and
// write to it. TIOCSTI stays denied. A private devpts instance in the
// helper's mount namespace would close it; until then the test logs what
// got through instead of failing.
func TestHostPty(t *testing.T) {
	requireSandbox(t)
	f := newFixture(t)
	master, term, pts := openPty(t)
	if _, err := master.Write([]byte("typed-" + secretText + "\n")); err != nil {
		t.Fatal(err)
	}
	// timeout only keeps a blocked read from hanging the test when the
	// line is not there; it decides nothing.
	o := runIn(t, f.config(WorkspaceWrite), "echo injected-by-sandbox > "+pts+"; timeout 10 head -n1 "+pts)
	stole := strings.Contains(o.stdout, secretText)
	injected := strings.Contains(terminalOutput(t, master, term), "injected-by-sandbox")
	var st unix.Stat_t
	if err := unix.Stat(pts, &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("host terminal %s (mode %o, uid %d; the sandbox runs as uid %d): read typed input: %v, wrote to it: %v; exit %d %s",
		pts, st.Mode&0o777, st.Uid, os.Geteuid(), stole, injected, o.code, strings.TrimSpace(o.stderr))
	f.untouched(t)
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
