package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap/sandbox"
)

func newSandboxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Inspect the sandbox",
	}
	var jsonOut bool
	doctor := &cobra.Command{
		Use:   "doctor",
		Short: "Print what this machine can enforce",
		Long: `Print what the sandbox can enforce on this machine: user namespaces (tried for
real, with a helper that mounts a fresh /proc), the Landlock ABI, and seccomp.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			caps := sandbox.Doctor()
			if jsonOut {
				return printJSON(cmd, caps)
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), caps.Text())
			return err
		},
	}
	doctor.Flags().BoolVar(&jsonOut, "json", false, "print the capabilities as JSON")
	cmd.AddCommand(doctor)
	return cmd
}
