package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/internal/cliconf"
)

// probeOptions reads the probe settings of a configuration.
func probeOptions(eff *config.File) envprobe.Options {
	return envprobe.Options{Tools: eff.Server.ProbeTools, Timeout: deref(eff.Server.ProbeTimeout, 0)}
}

func newEnvCmd() *cobra.Command {
	var (
		of      cliconf.Flags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "env",
		Short: "Print the environment snapshot an agent is told about",
		Long: `Print the environment snapshot the MCP server puts in its instructions: shell
and version, operating system, working directory and the versions of probed
tools. Probes are the host's own fixed commands: they skip the policy and
approval but run with the same shell, environment, limits and sandbox as the
agent's commands. A probe that fails is reported as not checked.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sh, eff, err := of.Shell(cmd.Flags())
			if err != nil {
				return err
			}
			defer sh.Close()
			snap, err := envprobe.Probe(cmd.Context(), sh, probeOptions(eff))
			if err != nil {
				return err
			}
			if jsonOut {
				return printJSON(cmd, snap)
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), snap.Text())
			return err
		},
	}
	of.Register(cmd.Flags(), config.Servers)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the snapshot as JSON")
	return cmd
}
