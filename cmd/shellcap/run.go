package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap"
)

func newRunCmd() *cobra.Command {
	var (
		opts     shellcap.Options
		timeout  time.Duration
		dir      string
		jsonOut  bool
		useStdin bool
		env      = envFlag{}
		maxOut   byteSize
		maxFile  byteSize
		memLimit byteSize
	)
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND",
		Short: "Run one command and print exactly what the model would read",
		Long: `Run one command through bash in the workspace, with the scrubbed environment,
limits and output caps an agent gets, and print exactly what the model would
read (or the structured result with --json). The exit status is the command's
own; 124 means it timed out and 125 that shellcap could not run it.`,
		Example: `  shellcap run -- 'ls -la | head'
  shellcap run --json --timeout 2m -- go test ./...`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Env = env
			opts.MaxOutputBytes = int64(maxOut)
			opts.MaxFileBytes = int64(maxFile)
			opts.MemoryLimit = int64(memLimit)
			opts.Logger = slog.Default()
			sh, err := shellcap.New(opts)
			if err != nil {
				return err
			}
			defer sh.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			req := shellcap.Request{Command: strings.Join(args, " "), Timeout: timeout, Dir: dir}
			if useStdin {
				req.Stdin = cmd.InOrStdin()
			}
			res, err := sh.Run(ctx, req)
			if err != nil {
				return err
			}
			if err := printResult(cmd, res, jsonOut); err != nil {
				return err
			}
			return statusOf(res)
		},
	}
	cmd.SetContext(context.Background())
	f := cmd.Flags()
	f.StringVarP(&opts.Workspace, "workspace", "w", "", "workspace directory (default: the current directory)")
	f.StringVar(&dir, "dir", "", "start in this directory, relative to the workspace")
	f.DurationVarP(&timeout, "timeout", "t", 0, "timeout for the command (default 30s)")
	f.DurationVar(&opts.MaxTimeout, "max-timeout", 0, "largest timeout a request may ask for (default 10m)")
	f.DurationVar(&opts.KillGrace, "kill-grace", 0, "time between SIGTERM and SIGKILL on timeout (default 2s)")
	f.StringVar(&opts.Shell, "shell", "", "shell that runs the command with -c (default: bash, else /bin/sh)")
	f.Var(env, "env", "add NAME=VALUE to the command's environment (repeatable)")
	f.StringSliceVar(&opts.PassEnv, "pass-env", nil, "host variables to pass through beyond PATH HOME LANG LC_ALL LC_CTYPE TERM TMPDIR")
	f.StringSliceVar(&opts.DeniedEnvPatterns, "deny-env", nil, "remove variables matching these globs (e.g. '*_TOKEN')")
	f.Var(&maxOut, "max-output-bytes", "stop the command after it printed this much (default 64MiB; e.g. 10M)")
	f.IntVar(&opts.MaxOutputChars, "max-output-chars", 0, "cap on the text the model reads, in characters (default 50000; negative: none)")
	f.BoolVar(&opts.HeadAndTail, "head-and-tail", false, "keep both ends of over-long output instead of only the end")
	f.BoolVar(&opts.KeepANSI, "keep-ansi", false, "keep ANSI escape sequences in the output")
	f.BoolVar(&opts.DisableOutputFiles, "no-output-files", false, "do not keep the complete output of truncated commands under .shellcap/output")
	f.Var(&maxFile, "max-file-bytes", "largest file the command may write (e.g. 10M)")
	f.Var(&memLimit, "memory-limit", "address-space limit per process (e.g. 2G)")
	f.DurationVar(&opts.CPUTime, "cpu-time", 0, "CPU time limit per process (e.g. 30s)")
	f.IntVar(&opts.MaxProcesses, "max-processes", 0, "process limit for the command's user (not enforced for root)")
	f.BoolVar(&useStdin, "stdin", false, "pass shellcap's standard input to the command (default: /dev/null)")
	f.BoolVar(&jsonOut, "json", false, "print the structured result as JSON")
	return cmd
}

func printResult(cmd *cobra.Command, res *shellcap.Result, jsonOut bool) error {
	out := cmd.OutOrStdout()
	if jsonOut {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	text := res.Text()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(out, text)
	return err
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
