package shellcap_test

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
)

// ttyHelperEnv selects TestControllingTerminalHelper in a child started by
// TestControllingTerminalUnreachable.
const ttyHelperEnv = "SHELLCAP_TEST_TTY_HELPER"

// TestControllingTerminalUnreachable: when the host process has a
// controlling terminal, a command cannot open it (Run then starts it in a
// new session); without one, a command still leads its own process group.
func TestControllingTerminalUnreachable(t *testing.T) {
	t.Run("without a terminal", func(t *testing.T) {
		sh := newShell(t, shellcap.Options{})
		res := run(t, sh, shellcap.Request{Command: `test "$(ps -o pgid= -p $$ | tr -d ' ')" = $$ && echo own-group; exec 3</dev/tty && echo reached-the-terminal`})
		if !strings.Contains(res.Stdout, "own-group") || strings.Contains(res.Stdout, "reached-the-terminal") {
			t.Fatalf("without a terminal: %s", res.Text())
		}
	})
	t.Run("with a terminal", func(t *testing.T) {
		master, slave := openPTY(t)
		defer master.Close()
		var out bytes.Buffer
		cmd := exec.Command(os.Args[0], "-test.run=^TestControllingTerminalHelper$", "-test.v")
		cmd.Env = append(os.Environ(), ttyHelperEnv+"=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		err := cmd.Run()
		slave.Close()
		if err != nil || !strings.Contains(out.String(), "--- PASS: TestControllingTerminalHelper") {
			t.Fatalf("helper with a controlling terminal: %v\n%s", err, out.String())
		}
	})
}

// TestControllingTerminalHelper runs inside a session whose controlling
// terminal is a pseudo-terminal: it can open /dev/tty, its commands cannot.
func TestControllingTerminalHelper(t *testing.T) {
	if os.Getenv(ttyHelperEnv) == "" {
		t.Skip("run by TestControllingTerminalUnreachable")
	}
	f, err := os.Open("/dev/tty")
	if err != nil {
		t.Fatalf("the helper has no controlling terminal, so the test proves nothing: %v", err)
	}
	f.Close()
	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: "exec 3</dev/tty && echo reached-the-terminal"})
	if strings.Contains(res.Stdout, "reached-the-terminal") || res.ExitCode == 0 {
		t.Fatalf("a command opened the host's controlling terminal: %s", res.Text())
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	return m, s
}
