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
	master, pts := openPty(t)
	if _, err := master.Write([]byte("typed-" + secretText + "\n")); err != nil {
		t.Fatal(err)
	}
	// timeout only keeps a blocked read from hanging the test when the
	// line is not there; it decides nothing.
	o := runIn(t, f.config(WorkspaceWrite), "echo injected-by-sandbox > "+pts+"; timeout 10 head -n1 "+pts)
	master.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 4096)
	n, _ := master.Read(buf)
	stole := strings.Contains(o.stdout, secretText)
	injected := strings.Contains(string(buf[:n]), "injected-by-sandbox")
	var st unix.Stat_t
	if err := unix.Stat(pts, &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("host terminal %s (mode %o, uid %d; the sandbox runs as uid %d): read typed input: %v, wrote to it: %v; exit %d %s",
		pts, st.Mode&0o777, st.Uid, os.Geteuid(), stole, injected, o.code, strings.TrimSpace(o.stderr))
	f.untouched(t)
}

// openPty opens a pseudo-terminal pair on the host and keeps the terminal
// side open, as a shell would, until the test ends. It returns the master
// and the terminal's path.
func openPty(t *testing.T) (*os.File, string) {
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
	pts := "/dev/pts/" + strconv.Itoa(n)
	term, err := os.OpenFile(pts, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	return master, pts
}
