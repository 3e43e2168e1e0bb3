//go:build linux

package shellcap_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/policy"
	"github.com/shellcap/shellcap/sandbox"
)

// procStat reads the command name and process group of pid from
// /proc/PID/stat.
func procStat(pid int) (comm string, pgrp int, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, err
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("malformed stat of %d: %q", pid, data)
	}
	fields := strings.Fields(string(data[end+1:])) // state ppid pgrp ...
	if len(fields) < 3 {
		return "", 0, fmt.Errorf("malformed stat of %d: %q", pid, data)
	}
	pgrp, err = strconv.Atoi(fields[2])
	return string(data[open+1 : end]), pgrp, err
}

// groupSleeps lists the live processes named sleep in group pgid.
func groupSleeps(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Error(err) // called off the test's goroutine
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, pgrp, err := procStat(pid); err == nil && comm == "sleep" && pgrp == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestOnStart: Request.OnStart gets, once, the PID of the command's shell,
// which leads the group of a sleep the command runs; the command has not
// finished when it is called.
func TestOnStart(t *testing.T) {
	shells := map[string]shellcap.Options{"host": {}}
	if c := sandbox.Doctor(); c.UserNamespaces && c.LandlockABI != 0 && c.Seccomp {
		shells["sandbox"] = shellcap.Options{Sandbox: sandbox.Confiner(sandbox.Config{})}
	} else if os.Getenv("CI") == "true" {
		t.Fatalf("CI machine cannot enforce the sandbox:\n%s", c.Text())
	} else {
		t.Logf("no sandboxed case: the machine cannot enforce the sandbox:\n%s", c.Text())
	}
	for name, opts := range shells {
		t.Run(name, func(t *testing.T) {
			sh := newShell(t, opts)
			var (
				mu      sync.Mutex
				calls   []int
				leader  = -1 // the pgrp of the PID OnStart got, read then
				sleeps  []int
				checked bool
			)
			stdinR, stdinW := io.Pipe()
			defer stdinW.Close()
			res := run(t, sh, shellcap.Request{
				// The sleep runs until the test has looked at it.
				Command: "sleep 60 & echo started; read -r _; kill $!; wait",
				Stdin:   stdinR,
				OnStart: func(pid int) {
					_, pgrp, err := procStat(pid)
					mu.Lock()
					defer mu.Unlock()
					calls = append(calls, pid)
					if err == nil {
						leader = pgrp
					}
				},
				OnOutput: func(_ shellcap.Stream, p []byte) {
					if !bytes.Contains(p, []byte("started")) {
						return
					}
					mu.Lock()
					pgid := -1
					if len(calls) == 1 {
						pgid = calls[0]
					}
					mu.Unlock()
					go func() {
						defer stdinW.Close()
						// The forked shell becomes sleep when it execs.
						deadline := time.Now().Add(10 * time.Second)
						found := groupSleeps(t, pgid)
						for len(found) == 0 && time.Now().Before(deadline) {
							time.Sleep(10 * time.Millisecond)
							found = groupSleeps(t, pgid)
						}
						mu.Lock()
						sleeps, checked = found, true
						mu.Unlock()
					}()
				},
			})
			if res.Err != nil || res.ExitCode != 143 && res.ExitCode != 0 {
				t.Fatalf("Run: %s", res.Text())
			}
			mu.Lock()
			defer mu.Unlock()
			if len(calls) != 1 {
				t.Fatalf("OnStart called %d times (%v), want once", len(calls), calls)
			}
			if leader != calls[0] {
				t.Fatalf("OnStart's PID %d is in group %d, want it to lead its own", calls[0], leader)
			}
			if !checked || len(sleeps) != 1 {
				t.Fatalf("sleeps in group %d while the command ran: %v (looked: %v), want one", calls[0], sleeps, checked)
			}
		})
	}
}

// TestOnStartNotCalledWhenRefused: a command that does not start (the
// policy denies it, it needs an approval no one gives, the sandbox refuses
// it, its directory is gone) never reaches OnStart.
func TestOnStartNotCalledWhenRefused(t *testing.T) {
	tests := []struct {
		name string
		opts shellcap.Options
		req  shellcap.Request
		kind error
	}{
		{"policy deny", shellcap.Options{}, shellcap.Request{Command: "rm -rf doomed"}, shellcap.ErrDenied},
		{"needs approval", shellcap.Options{Policy: policy.Rules{Approval: true}}, shellcap.Request{Command: "touch ran"}, shellcap.ErrNotApproved},
		{"sandbox refusal", shellcap.Options{Sandbox: refusingConfiner{}}, shellcap.Request{Command: "true # refuse-me"}, shellcap.ErrSandbox},
		{"workdir gone", shellcap.Options{}, shellcap.Request{Command: "true", Dir: "missing"}, shellcap.ErrWorkdirGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := newShell(t, tt.opts)
			calls := 0
			req := tt.req
			req.OnStart = func(int) { calls++ }
			res := run(t, sh, req)
			if !errors.Is(res.Err, tt.kind) {
				t.Fatalf("Err = %v, want %v", res.Err, tt.kind)
			}
			if calls != 0 {
				t.Fatalf("OnStart called %d times for a command that did not start", calls)
			}
		})
	}
}
