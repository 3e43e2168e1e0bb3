//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/internal/leaktest"
)

// lifeMark labels the commands one test's server starts, so /proc tells
// which processes are its own.
func lifeMark(t *testing.T) string {
	return fmt.Sprintf("SCTEST_LIFE=%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
}

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitListening(t *testing.T, addr string) {
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never listened")
		}
	}
}

// startServer starts `shellcap mcp` or `shellcap serve` whose commands
// carry mark, and returns a connected client (legacy protocol, so HTTP
// has a session and a bash shell of its own).
func startServer(t *testing.T, kind, mark string, extra ...string) (*exec.Cmd, *mcp.ClientSession) {
	t.Helper()
	args := append([]string{kind, "--workspace", t.TempDir(), "--env", mark}, extra...)
	var addr string
	if kind == "serve" {
		addr = freeAddr(t)
		args = append(args, "--addr", addr)
	}
	srv := cliCommand(args...)
	srv.Stderr = os.Stderr
	var transport mcp.Transport
	if kind == "mcp" {
		in, _ := srv.StdinPipe()
		out, _ := srv.StdoutPipe()
		transport = &mcp.IOTransport{Reader: out, Writer: in}
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
		for _, pid := range leaktest.Processes(mark, 0) {
			syscall.Kill(pid, syscall.SIGKILL) // a failed test's, or a job's
		}
	})
	if kind == "serve" {
		waitListening(t, addr)
		transport = &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/"}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// busy starts, on the server behind cs, the processes a SIGKILL must not
// leave behind: a bash tool shell with a child, and a foreground
// run_command whose group holds a background and a foreground sleep. It
// returns once they all run, with the call still in flight.
func busy(t *testing.T, cs *mcp.ClientSession, mark string) (inFlight <-chan *mcp.CallToolResult) {
	t.Helper()
	toolText(t, cs, "bash", map[string]any{"command": "sleep 302 &"})
	// A finished command that left a background process in its group.
	if got := toolText(t, cs, "run_command", map[string]any{"command": "sleep 304 &"}); !strings.Contains(got, "still running") {
		t.Fatalf("run_command left nothing running: %q", got)
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command",
			Arguments: map[string]any{"command": "sleep 300 & sleep 301", "timeout_seconds": 600}})
		done <- res
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// bash shell, its sleep, the leftover sleep, run_command's bash
		// and two sleeps.
		if n := len(leaktest.Processes(mark, 0)); n >= 6 {
			// The server registers a command's group with its guardian
			// right after the fork returns; on a loaded machine its
			// goroutine may run a little after bash has forked the
			// sleeps. That window is a documented limit, not what this
			// test measures, so give the registration a moment.
			time.Sleep(300 * time.Millisecond)
			return done
		}
		if time.Now().After(deadline) {
			t.Fatalf("the commands did not start: %v", leaktest.Processes(mark, 0))
		}
	}
}

func sessionDirs(pid int) []string {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "shellcap-session-"+strconv.Itoa(pid)+"-*"))
	return dirs
}

// TestNothingOutlivesAKilledServer SIGKILLs a real `shellcap mcp` and a
// real `shellcap serve` in the middle of a call and checks in /proc that
// nothing of their commands or bash shells runs on, and that the bash
// tool's session directory is gone.
func TestNothingOutlivesAKilledServer(t *testing.T) {
	for _, c := range []struct {
		kind  string
		flags []string
	}{
		{"mcp", []string{"--sandbox", "full-access"}},
		{"serve", []string{"--sandbox", "full-access"}},
		{"mcp", []string{"--sandbox", "workspace-write"}},
		{"serve", []string{"--sandbox", "workspace-write"}},
	} {
		t.Run(c.kind+"-"+c.flags[1], func(t *testing.T) {
			if c.flags[1] != "full-access" {
				needSandbox(t)
			}
			mark := lifeMark(t)
			srv, cs := startServer(t, c.kind, mark, c.flags...)
			// A background job, which by design outlives the server.
			toolText(t, cs, "start_command", map[string]any{"command": "SCTEST_JOB=1 exec sleep 305"})
			busy(t, cs, mark)
			if len(sessionDirs(srv.Process.Pid)) == 0 {
				t.Fatal("no session directory while the bash tool runs")
			}
			srv.Process.Signal(syscall.SIGKILL)
			srv.Wait()
			var left, job []int
			for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				left, job = nil, nil
				for _, pid := range leaktest.Processes(mark, 0) {
					env, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
					cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
					if strings.Contains("\x00"+string(env), "\x00SCTEST_JOB=1\x00") || strings.HasPrefix(string(cmdline), "shellcap-job-supervisor\x00") {
						job = append(job, pid)
					} else {
						left = append(left, pid)
					}
				}
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
			}
			if len(left) > 0 {
				t.Fatalf("processes outlived the killed server: %s", describe(left))
			}
			if len(job) < 2 { // its supervisor and its sleep
				t.Fatalf("the background job died with the server: %v", job)
			}
			for deadline := time.Now().Add(5 * time.Second); len(sessionDirs(srv.Process.Pid)) > 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("session directories left: %v", sessionDirs(srv.Process.Pid))
				}
			}
		})
	}
}

// TestSIGTERMCancelsCalls: SIGTERM makes `shellcap serve` (and `shellcap
// mcp`) cancel the call in flight (the client gets its cancelled result)
// and stop its process group, even one that ignores SIGTERM, within the
// kill grace, before exiting.
func TestSIGTERMCancelsCalls(t *testing.T) {
	for _, kind := range []string{"serve", "mcp"} {
		t.Run(kind, func(t *testing.T) {
			mark := lifeMark(t)
			srv, cs := startServer(t, kind, mark, "--kill-grace", "1s")
			done := make(chan *mcp.CallToolResult, 1)
			go func() {
				res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_command",
					Arguments: map[string]any{"command": "trap '' TERM; sleep 300 & sleep 301; wait", "timeout_seconds": 600}})
				done <- res
			}()
			for deadline := time.Now().Add(20 * time.Second); len(leaktest.Processes(mark, 0)) < 3; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the command did not start")
				}
			}
			start := time.Now()
			srv.Process.Signal(syscall.SIGTERM)
			select {
			case res := <-done:
				if res == nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "cancelled") {
					t.Fatalf("the call in flight was not cancelled: %+v", res)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("no answer to the call in flight")
			}
			exited := make(chan error, 1)
			go func() { exited <- srv.Wait() }()
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				t.Fatalf("%s did not exit after SIGTERM", kind)
			}
			took := time.Since(start)
			if left := leaktest.Processes(mark, 0); len(left) > 0 {
				t.Fatalf("processes outlived SIGTERM: %s", describe(left))
			}
			t.Logf("%s stopped its call and exited %v after SIGTERM (kill grace 1s)", kind, took.Round(time.Millisecond))
		})
	}
}

// TestServeTokenNotReadable: a token given in SHELLCAP_TOKEN or in a
// token file cannot be read by commands from the server's /proc entries.
func TestServeTokenNotReadable(t *testing.T) {
	const token = "secret-token-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte(token+"\n"), 0o600)
	for _, how := range []string{"env", "file", "pipe"} {
		t.Run(how, func(t *testing.T) {
			mark := lifeMark(t)
			addr := freeAddr(t)
			srv := cliCommand("serve", "--workspace", t.TempDir(), "--env", mark, "--addr", addr)
			switch how {
			case "env":
				srv.Env = append(srv.Env, "SHELLCAP_TOKEN="+token)
			case "file":
				srv.Args = append(srv.Args, "--token-file", file)
			case "pipe":
				r, w, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				w.WriteString(token + "\n")
				w.Close()
				defer r.Close()
				srv.ExtraFiles = []*os.File{r}
				srv.Args = append(srv.Args, "--token-file", "/dev/fd/3")
			}
			srv.Stderr = os.Stderr
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { srv.Process.Kill(); srv.Wait() }()
			waitListening(t, addr)
			httpClient := &http.Client{Transport: bearerRT{token}}
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: httpClient}, nil)
			if err != nil {
				t.Fatalf("the token does not work: %v", err)
			}
			defer cs.Close()
			got := toolText(t, cs, "run_command", map[string]any{"command": `for f in /proc/$PPID/environ /proc/$PPID/cmdline /proc/$PPID/fd/*; do timeout 0.3 cat "$f"; done 2>/dev/null | tr '\0' '\n'; ls -l /proc/$PPID/fd; echo done`})
			if strings.Contains(got, token) || !strings.Contains(got, "done") {
				t.Fatalf("a command read the token from the server's /proc:\n%s", got)
			}
			// Unauthenticated requests are still refused.
			resp, err := http.Post("http://"+addr+"/", "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("without the token: %d", resp.StatusCode)
			}
		})
	}
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "bearer "+b.token) // any case of the scheme
	return http.DefaultTransport.RoundTrip(r)
}

func describe(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		fmt.Fprintf(&b, "\n  %d %q %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "), stat)
	}
	return b.String()
}

// TestServeRefusesShortToken: a bearer token under 16 bytes stops serve
// at start, with the reason.
func TestServeRefusesShortToken(t *testing.T) {
	for _, env := range []string{"--token=short", "SHELLCAP_TOKEN=fifteen-bytes!!"} {
		srv := cliCommand("serve", "--workspace", t.TempDir(), "--addr", freeAddr(t))
		if strings.HasPrefix(env, "--") {
			srv.Args = append(srv.Args, env)
		} else {
			srv.Env = append(srv.Env, env)
		}
		out, err := srv.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "at least 16 bytes") {
			t.Errorf("%s: err %v, output %q", env, err, out)
		}
	}
}
