// Command shellcap runs shell commands the way an AI agent should see them:
// scrubbed environment, hard limits, bounded output, and exactly the text
// a model reads.
//
//	shellcap run -- 'ls -la | head'      # what the model would read; exit status passes through
//	shellcap run --json -- 'go test ./...'
//	shellcap version
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses of shellcap itself; a command's own status passes through.
const (
	exitTimeout = 124 // the command timed out, as timeout(1) reports it
	exitFailure = 125 // shellcap could not run the command
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the CLI and returns the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if isTemporalServe(args) {
		return runTemporal(args, stdin, stdout, stderr)
	}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	var st exitStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &st):
		return int(st)
	default:
		msg := err.Error()
		if !strings.HasPrefix(msg, "shellcap:") {
			msg = "shellcap: " + msg
		}
		fmt.Fprintln(stderr, msg)
		return exitFailure
	}
}

// exitStatus is returned by a subcommand to end the process with that
// status after printing its output.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
