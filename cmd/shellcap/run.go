package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
)

func newRunCmd() *cobra.Command {
	var (
		of       cliconf.Flags
		timeout  timeoutFlag
		dir      string
		jsonOut  bool
		useStdin bool
	)
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND",
		Short: "Run one command and print exactly what the model would read",
		Long: `Run one command through bash in the workspace, with the scrubbed environment,
policy, limits and output caps an agent gets, and print exactly what the model
would read (or the structured result with --json). The exit status is the
command's own; 124 means it timed out and 125 that shellcap could not run it
(or refused to: the policy's reason is printed).`,
		Example: `  shellcap run -- 'ls -la | head'
  shellcap run --json --timeout 2m -- go test ./...`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sh, eff, err := of.Shell(cmd.Flags())
			if err != nil {
				return err
			}
			defer sh.Close()
			run := sh.Run
			if eff.UsesContainer() {
				x, err := containerExecutor(sh, eff)
				if err != nil {
					return of.Keyed("container.Options", err)
				}
				defer x.Close()
				run = x.Run
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			req := shellcap.Request{Command: strings.Join(args, " "), Timeout: time.Duration(timeout), Dir: dir, StopBackground: true}
			if useStdin {
				req.Stdin = cmd.InOrStdin()
			}
			progress := startProgress(cmd.ErrOrStderr())
			req.OnOutput = func(_ shellcap.Stream, p []byte) { progress.count(len(p)) }
			res, err := run(ctx, req)
			progress.end()
			if err != nil {
				return err
			}
			if err := emit(cmd, res, jsonOut); err != nil {
				return err
			}
			return statusOf(res)
		},
	}
	cmd.SetContext(context.Background())
	f := cmd.Flags()
	of.Register(f, config.Commands)
	f.StringVar(&dir, "dir", "", "start in this directory, relative to the workspace")
	f.VarP(&timeout, "timeout", "t", "timeout for the command: a duration (2m) or seconds (default 30s)")
	f.BoolVar(&useStdin, "stdin", false, "pass shellcap's standard input to the command (default: /dev/null)")
	f.BoolVar(&jsonOut, "json", false, "print the structured result as JSON")
	return cmd
}

// statusOf maps a result to the process exit status.
func statusOf(res *shellcap.Result) error {
	switch {
	case res.Err != nil:
		return exitStatus(exitFailure)
	case res.TimedOut:
		return exitStatus(exitTimeout)
	case res.ExitCode != 0:
		return exitStatus(res.ExitCode)
	}
	return nil
}
