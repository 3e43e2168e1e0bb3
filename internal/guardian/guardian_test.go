package guardian

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap/internal/proc"
)

func TestMain(m *testing.M) {
	if os.Getenv("SCTEST_GUARDIAN_PARENT") != "" {
		os.Exit(parentMain())
	}
	os.Exit(m.Run())
}

// parentMain plays a server: it starts a guardian and a command group,
// registers the group, prints its ID and waits to be killed.
func parentMain() int {
	g, err := Start()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	pgid, err := startGroup()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	dir, _ := os.MkdirTemp("", "guardian-test-")
	if _, err := g.WatchGroup(pgid); err != nil {
		fmt.Println("error", err)
		return 1
	}
	if _, err := g.WatchDir(dir); err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println(pgid, dir)
	time.Sleep(time.Minute)
	return 0
}

// startGroup starts a shell in a new session with a background and a
// foreground child, as `run_command "sleep 300 & sleep 301"` does.
func startGroup() (int, error) {
	cmd := exec.Command("bash", "-c", "sleep 300 & sleep 301")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go cmd.Wait()
	// Wait until both sleeps run.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m, _ := proc.GroupMembers(cmd.Process.Pid, 0); len(m) >= 3 {
			return cmd.Process.Pid, nil
		}
	}
	return 0, fmt.Errorf("group %d did not start", cmd.Process.Pid)
}

func gone(t *testing.T, pgid int, within time.Duration) bool {
	t.Helper()
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if m, err := proc.GroupMembers(pgid, 0); err == nil && len(m) == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// TestGroupsDieWithTheParent SIGKILLs a real parent process and checks in
// /proc that nothing of its command's group remains and its directory is
// removed.
func TestGroupsDieWithTheParent(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "SCTEST_GUARDIAN_PARENT=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("parent: %v", err)
	}
	f := strings.Fields(line)
	pgid, err := strconv.Atoi(f[0])
	if err != nil || len(f) != 2 {
		t.Fatalf("parent said %q", line)
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL) // if the test fails
	if m, _ := proc.GroupMembers(pgid, 0); len(m) < 3 {
		t.Fatalf("group %d has %d members before the kill", pgid, len(m))
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !gone(t, pgid, 5*time.Second) {
		m, _ := proc.GroupMembers(pgid, 0)
		t.Fatalf("group %d outlived its parent: %v", pgid, m)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(f[1]); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("directory %s outlived its parent", f[1])
		}
	}
}

// TestCloseKillsWhatIsLeftButNotReleasedGroups: Close acts like death for
// registered groups; a released group is left alone.
func TestCloseKillsWhatIsLeftButNotReleasedGroups(t *testing.T) {
	g, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	kept, err := startGroup()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-kept, syscall.SIGKILL)
	doomed, err := startGroup()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-doomed, syscall.SIGKILL)
	release, err := g.WatchGroup(kept)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.WatchGroup(doomed); err != nil {
		t.Fatal(err)
	}
	release()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if !gone(t, doomed, 5*time.Second) {
		t.Fatal("a registered group survived Close")
	}
	if gone(t, kept, 200*time.Millisecond) {
		t.Fatal("a released group was killed")
	}
	if _, err := g.WatchGroup(kept); err == nil {
		t.Fatal("WatchGroup after Close succeeded")
	}
}

// TestReusedPIDIsSpared: a registration whose leader's start time does
// not match the live process (a reused PID) kills nothing.
func TestReusedPIDIsSpared(t *testing.T) {
	g, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	other, err := startGroup()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-other, syscall.SIGKILL)
	info, _ := proc.Stat(other)
	// Register it as if an earlier process with this ID had been ours.
	if err := g.send(fmt.Sprintf("+g %d %d", other, info.StartTicks-1)); err != nil {
		t.Fatal(err)
	}
	g.Close()
	if gone(t, other, 300*time.Millisecond) {
		t.Fatal("a group whose leader has another start time was killed")
	}
}

// TestGuardianDeathIsReported: once the helper is gone, registering
// fails, so no command is started unprotected.
func TestGuardianDeathIsReported(t *testing.T) {
	g, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	syscall.Kill(g.PID(), syscall.SIGKILL)
	<-g.exited
	if _, err := g.WatchGroup(os.Getpid()); err == nil {
		t.Fatal("WatchGroup succeeded with the guardian dead")
	}
}
