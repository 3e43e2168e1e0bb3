//go:build linux

package shellcap_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/guardian"
	"github.com/shellcap/shellcap/internal/proc"
)

// guardianChildren lists this process's guardian helpers.
func guardianChildren() []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		status, err := os.ReadFile(d + "/status")
		if err != nil || !bytes.Contains(status, []byte("\nPPid:\t"+strconv.Itoa(os.Getpid())+"\n")) {
			continue
		}
		if cmdline, _ := os.ReadFile(d + "/cmdline"); bytes.HasPrefix(cmdline, []byte("shellcap-guardian\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			out = append(out, pid)
		}
	}
	return out
}

// TestDieWithProcessFailsClosed: once the guardian is gone, a command is
// not run at all (it would outlive us), and the error says why.
func TestDieWithProcessFailsClosed(t *testing.T) {
	before := guardianChildren()
	sh := newShell(t, shellcap.Options{DieWithProcess: true})
	if res := run(t, sh, shellcap.Request{Command: "echo guarded"}); res.Stdout != "guarded\n" {
		t.Fatalf("guarded run: %q", res.Text())
	}
	var mine []int
	for _, pid := range guardianChildren() {
		if !containsInt(before, pid) {
			mine = append(mine, pid)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("guardian helpers started by New: %v", mine)
	}
	syscall.Kill(mine[0], syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if info, err := proc.Stat(mine[0]); err != nil || info.State == 'Z' {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the guardian did not die")
		}
	}
	res, err := sh.Run(context.Background(), shellcap.Request{Command: "sleep 30"})
	if err == nil {
		t.Fatalf("a command ran without its guardian: %q", res.Text())
	}
	if !errors.Is(err, guardian.ErrGone) {
		t.Fatalf("error %v does not say the guardian is gone", err)
	}
	if left := markedProcesses(5 * time.Second); len(left) > 0 {
		t.Fatalf("the refused command runs: %v", left)
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
