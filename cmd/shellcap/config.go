package main

import (
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration",
	}
	cmd.AddCommand(newConfigPrintCmd())
	return cmd
}

func newConfigPrintCmd() *cobra.Command {
	var (
		of      optionFlags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "print",
		Short: "Print the effective configuration",
		Long: `Print the effective configuration as YAML: the configuration file, then the
SHELLCAP_* environment, then the flags, each overriding the one before.
Keys nobody set show their default; secrets are redacted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eff, err := of.effective(cmd.Flags())
			if err != nil {
				return err
			}
			if err := eff.Validate(); err != nil {
				return err
			}
			out, err := eff.Marshal()
			if err != nil {
				return err
			}
			if jsonOut {
				// The same document, as JSON.
				var doc map[string]any
				if err := yaml.Unmarshal(out, &doc); err != nil {
					return err
				}
				return printJSON(cmd, doc)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	of.register(cmd.Flags())
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the configuration as JSON")
	return cmd
}
