//go:build linux

// Package devserver starts a real Temporal server for tests: the Temporal
// CLI's dev server (temporal server start-dev), v1.5.1, built once from
// the Go module proxy and cached outside the checkout (scripts/test builds
// it when it is missing).
//
// Tests share one server per test binary ([ForTest]); it listens on a free
// loopback port, keeps its state in memory and dies with the test binary.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// Version is the Temporal CLI version the tests run.
const Version = "v1.5.1"

// EnvPath names the variable that overrides where the CLI binary is. It is
// not a SHELLCAP_* variable: those configure shellcap, which refuses the
// ones it does not know (a worker the tests start would refuse to run).
const EnvPath = "SCTEST_TEMPORAL_CLI"

// ErrMissing reports that the Temporal CLI binary is not installed.
var ErrMissing = errors.New("devserver: the Temporal CLI is not installed")

// Path returns the Temporal CLI binary: $SCTEST_TEMPORAL_CLI, else
// temporal-cli-<Version>/temporal under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache) in shellcap/, where scripts/test puts it.
func Path() (string, error) {
	p := os.Getenv(EnvPath)
	if p == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("%w: no cache directory (%v); set %s", ErrMissing, err, EnvPath)
		}
		p = filepath.Join(cache, "shellcap", "temporal-cli-"+Version, "temporal")
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%w at %s (scripts/test builds it: go install github.com/temporalio/cli/cmd/temporal@%s)", ErrMissing, p, Version)
	}
	return p, nil
}

// Server is a running dev server.
type Server struct {
	// Addr is the frontend's host:port, for client.Options.HostPort.
	Addr string
	// Namespace is the namespace to use ("default").
	Namespace string

	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts a dev server on a free loopback port and returns once it
// answers a health check. The server dies with this process.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Path()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Namespace: "default", done: make(chan struct{})}
	s.cmd = exec.Command(bin, "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", strconv.Itoa(port), "--log-level", "error")
	s.cmd.Stdout, s.cmd.Stderr = os.Stderr, os.Stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("devserver: start %s: %w", bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		c, err := client.Dial(client.Options{HostPort: s.Addr, Namespace: s.Namespace, Logger: quiet{}})
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return s, nil
			}
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("devserver: the server exited before it was ready: %v", s.cmd.ProcessState)
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("devserver: not ready after 2 minutes: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Stop kills the server and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-s.done
}

// Dial connects a client to the server; the test closes it at cleanup.
func (s *Server) Dial(t testing.TB) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{HostPort: s.Addr, Namespace: s.Namespace, Logger: quiet{}})
	if err != nil {
		t.Fatalf("devserver: dial %s: %v", s.Addr, err)
	}
	t.Cleanup(c.Close)
	return c
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// ForTest returns the server shared by this test binary, starting it on
// first use. Without the CLI binary the test is skipped, except under
// CI=true, where it fails: CI must run these tests.
func ForTest(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() { shared.srv, shared.err = Start(context.Background()) })
	if shared.err != nil {
		if errors.Is(shared.err, ErrMissing) && os.Getenv("CI") != "true" {
			t.Skip(shared.err)
		}
		t.Fatal(shared.err)
	}
	return shared.srv
}

// Main runs the tests and then stops the shared server: call it from
// TestMain as os.Exit(devserver.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared.srv != nil {
		shared.srv.Stop()
	}
	return code
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devserver: no free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// quiet is a client logger that drops everything: the SDK logs every
// retry of a dial at warning level.
type quiet struct{}

func (quiet) Debug(string, ...any) {}
func (quiet) Info(string, ...any)  {}
func (quiet) Warn(string, ...any)  {}
func (quiet) Error(string, ...any) {}

var _ log.Logger = quiet{}
