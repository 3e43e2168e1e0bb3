package main

import (
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

func newRootCmd() *cobra.Command {
	var logLevel string
	root := &cobra.Command{
		Use:           "shellcap",
		Short:         "A shell capability for AI agents",
		Long:          "shellcap runs shell commands for AI agents: a scrubbed environment, hard limits, bounded output and exactly the text a model reads.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			var level slog.Level
			if err := level.UnmarshalText([]byte(strings.ToUpper(logLevel))); err != nil {
				return err
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level})))
			return nil
		},
	}
	root.PersistentFlags().StringVar(&logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	root.AddCommand(newJobCmds()...)
	root.AddCommand(newRunCmd(), newReplCmd(), newMCPCmd(), newServeCmd(), newPolicyCmd(), newConfigCmd(), newEnvCmd(), newSandboxCmd(), newBenchCmd(), newVersionCmd(), newWorkerCmd())
	return root
}
