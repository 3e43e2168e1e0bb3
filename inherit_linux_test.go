package shellcap_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/shellcap/shellcap"
)

// TestInheritedDescriptorsDoNotReachCommands: a descriptor this process
// holds without close-on-exec (as one inherited from its parent would be)
// reaches a plain os/exec child — the calibration — but no command a Shell
// runs.
func TestInheritedDescriptorsDoNotReachCommands(t *testing.T) {
	const fd = 77
	f, err := os.CreateTemp(t.TempDir(), "inherited")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Dup2(int(f.Fd()), fd); err != nil { // dup2 clears close-on-exec
		t.Fatal(err)
	}
	defer unix.Close(fd)
	probe := "if [ -e /proc/$$/fd/77 ]; then echo open; else echo closed; fi"

	out, err := exec.Command("bash", "-c", probe).Output()
	if err != nil || strings.TrimSpace(string(out)) != "open" {
		t.Fatalf("calibration: a plain child sees %q (%v), want open", out, err)
	}

	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: probe})
	if res.Stdout != "closed\n" {
		t.Fatalf("a command saw the inherited descriptor: %s", res.Text())
	}
}
