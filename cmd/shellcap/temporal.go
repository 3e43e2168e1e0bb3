package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// The Temporal commands (`shellcap worker`, `shellcap serve --temporal`)
// are run by a separate program, so that the core module never imports
// the Temporal SDK.
const (
	temporalBinary  = "shellcap-temporal"
	temporalInstall = "(cd temporal && go install ./cmd/shellcap-temporal)   # in a shellcap checkout"
)

// isTemporalServe reports whether a `serve` command line asks for the
// Temporal front door (--temporal).
func isTemporalServe(args []string) bool {
	if len(args) == 0 || args[0] != "serve" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			return false
		}
		if a == "--temporal" || strings.HasPrefix(a, "--temporal=") {
			return true
		}
	}
	return false
}

func newWorkerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "worker --temporal HOST:PORT --host NAME --workspace PATH...",
		Short: "Run the commands of this host's workspaces for a Temporal fleet",
		Long: `Run a shellcap worker on Temporal: it polls the task queue shellcap-host-NAME
and runs the tool calls and commands of the workspaces it is given. The MCP
front door (shellcap serve --temporal HOST:PORT --workspace NAME:PATH ...)
routes each call to the worker of its workspace's host.

It is run by ` + temporalBinary + ` (found next to this binary, then on PATH), with the
same arguments. Install it with:
  ` + temporalInstall + `
When it is not installed and this shellcap was built in a checkout (go run
or go build there), it is built from that checkout first (go build; later
builds reuse Go's build cache).`,
		Example: `  shellcap worker --temporal temporal.internal:7233 --host build1 --workspace /srv/repo
  shellcap serve --temporal temporal.internal:7233 --workspace build1:/srv/repo`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if st := runTemporal(append([]string{"worker"}, args...), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()); st != 0 {
				return exitStatus(st)
			}
			return nil
		},
	}
}

// findTemporal finds the Temporal program: next to this executable, then
// on PATH.
func findTemporal() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), temporalBinary)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(temporalBinary)
}

// runTemporal runs the Temporal program with args, passing the standard
// streams and SIGINT, SIGTERM and SIGHUP through, and returns its exit
// status.
func runTemporal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	path, err := findTemporal()
	if err != nil {
		root, ok := findCheckout()
		if !ok {
			fmt.Fprintf(stderr, "shellcap: `shellcap %s` is run by %s, which is not installed (looked next to the shellcap binary and on PATH). Install it with:\n  %s\n",
				temporalCommand(args), temporalBinary, temporalInstall)
			return exitFailure
		}
		if path, err = buildFromCheckout(root, stderr); err != nil {
			fmt.Fprintf(stderr, "shellcap: `shellcap %s` is run by %s, which is not installed, and building it from the checkout at %s failed: %v\nInstall it with:\n  %s\n",
				temporalCommand(args), temporalBinary, root, err, temporalInstall)
			return exitFailure
		}
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "shellcap: cannot run %s: %v\n", path, err)
		return exitFailure
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case sig := <-sigs:
			_ = cmd.Process.Signal(sig)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal())
				}
				return ee.ExitCode()
			}
			if err != nil {
				fmt.Fprintf(stderr, "shellcap: %s: %v\n", path, err)
				return exitFailure
			}
			return 0
		}
	}
}

// temporalCommand names the command for messages.
func temporalCommand(args []string) string {
	if len(args) > 0 && args[0] == "serve" {
		return "serve --temporal"
	}
	return "worker"
}
