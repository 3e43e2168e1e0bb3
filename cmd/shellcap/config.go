package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
)

func newConfigCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Inspect the configuration and trust workspace configuration files",
	}
	cmd.AddCommand(newConfigPrintCmd(), newConfigTrustCmd(), newConfigUntrustCmd(), newConfigTableCmd())
	return cmd
}

func newConfigPrintCmd() *cobra.Command {
	var (
		of      cliconf.Flags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "print",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the effective configuration as YAML. Each key a source set carries a
comment naming it (a file's path, a SHELLCAP_* variable, a flag); the others
say "default". Sources, each overriding the one before: your configuration file
(--config, $SHELLCAP_CONFIG or the user configuration directory), shellcap.yaml
in the workspace and the current directory (whole once trusted with
"shellcap config trust", else only the keys that tighten), the SHELLCAP_*
environment, the flags. The keys of an untrusted workspace file that were
refused are listed at the end. Secrets are redacted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := of.Load(cmd.Flags())
			if err != nil {
				return err
			}
			if err := l.Eff.Validate(); err != nil {
				return err
			}
			out, err := l.Eff.MarshalOrigins(l.Origins)
			if err != nil {
				return err
			}
			if jsonOut {
				// The same document, as JSON, with the origins beside it.
				var doc map[string]any
				if err := yaml.Unmarshal(out, &doc); err != nil {
					return err
				}
				var refused []map[string]string
				for _, n := range l.Notes {
					refused = append(refused, map[string]string{"file": n.Path, "key": n.Key, "note": n.Msg})
				}
				return printJSON(cmd, map[string]any{"config": doc, "origins": l.Origins, "workspace_file_notes": refused})
			}
			for _, n := range l.Notes {
				out = fmt.Appendf(out, "# %s: %s: %s\n", n.Path, n.Key, n.Msg)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	of.Register(cmd.Flags(), config.Serve)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the configuration as JSON")
	return cmd
}

// trustStore is the user's store of trusted workspace files.
func trustStore() (*config.TrustStore, error) {
	dir, err := config.UserDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	return &config.TrustStore{Path: filepath.Join(dir, config.TrustFileName)}, nil
}

// workspaceConfig is FILE, or the configuration file of the workspace
// (-w, else the current directory).
func workspaceConfig(args []string, workspace string) (string, error) {
	if len(args) == 1 {
		return config.ExpandHome(args[0], os.Getenv("HOME"))
	}
	dir, err := config.ExpandHome(workspace, os.Getenv("HOME"))
	if err != nil {
		return "", err
	}
	if dir == "" {
		dir = "."
	}
	p, ok := config.Find(dir)
	if !ok {
		return "", fmt.Errorf("no %s in %s", config.FileNames[0], dir)
	}
	return p, nil
}

func newConfigTrustCmd() *cobra.Command {
	var (
		workspace string
		list      bool
	)
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Accept a workspace's configuration file whole, as it is now",
		Long: `Record FILE (default: shellcap.yaml, .yml or .json in the workspace) with the
SHA-256 of its present content in the trust store of your configuration
directory ($XDG_CONFIG_HOME/shellcap/trusted.json or
~/.config/shellcap/trusted.json), outside every workspace. A trusted file is
loaded whole, loosening keys included; untrusted, only the keys that tighten
the configuration are kept. Any change to the file makes it untrusted again.
Read the file before trusting it: it can turn the sandbox and the deny list
off. --list prints the trusted files.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return err
			}
			if list {
				files, err := store.List()
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", f[1], f[0])
				}
				return nil
			}
			p, err := workspaceConfig(args, workspace)
			if err != nil {
				return err
			}
			canon, digest, err := store.Trust(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "trusted %s (%s)\n", canon, digest)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "the workspace whose configuration file to trust (default: the current directory)")
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted files")
	return cmd
}

func newConfigUntrustCmd() *cobra.Command {
	var workspace string
	cmd := &cobra.Command{
		Use:   "untrust [FILE]",
		Short: "Forget that a workspace's configuration file was trusted",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return err
			}
			p, err := workspaceConfig(args, workspace)
			if err != nil {
				return err
			}
			ok, err := store.Untrust(p)
			if err != nil {
				return err
			}
			if !ok {
				return errors.New(p + " was not trusted")
			}
			fmt.Fprintf(cmd.OutOrStdout(), "untrusted %s\n", p)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "the workspace whose configuration file to forget (default: the current directory)")
	return cmd
}
