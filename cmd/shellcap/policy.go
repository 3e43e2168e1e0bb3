package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"

	"github.com/shellcap/shellcap/policy"
)

// Exit statuses of policy check.
const (
	exitAsk  = 2
	exitDeny = 1
)

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Inspect the command policy",
	}
	cmd.AddCommand(newPolicyCheckCmd())
	return cmd
}

func newPolicyCheckCmd() *cobra.Command {
	var (
		of      cliconf.Flags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "check [flags] -- COMMAND",
		Short: "Print the policy's decision on a command, without running it",
		Long: `Print the policy's decision on a command without running it: the verdict
(allow, ask or deny), the rule that decided, the reason the model would read,
and the position of the offending word. Exit status: 0 allow, 1 deny, 2 ask.`,
		Example: `  shellcap policy check -- 'ls; rm -rf build'
  shellcap policy check --allow git,go --json -- 'git status && make'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, _, err := of.Options(cmd.Flags())
			if err != nil {
				return err
			}
			p, err := policy.New(opts.Policy)
			if err != nil {
				return err
			}
			d := p.Check(strings.Join(args, " "))
			out := cmd.OutOrStdout()
			if jsonOut {
				if err := printJSON(cmd, d); err != nil {
					return err
				}
			} else {
				code := map[policy.Verdict]string{policy.Allow: "32", policy.Ask: "33", policy.Deny: "31"}[d.Verdict]
				fmt.Fprintf(out, "verdict:  %s\nrule:     %s\nreason:   %s\n", colour(out, code, d.Verdict.String()), d.Rule, d.Reason)
				if d.Word != "" {
					fmt.Fprintf(out, "word:     %s\n", d.Word)
				}
				if d.Pos.Line > 0 {
					fmt.Fprintf(out, "position: %s\n", d.Pos)
				}
			}
			switch d.Verdict {
			case policy.Deny:
				return exitStatus(exitDeny)
			case policy.Ask:
				return exitStatus(exitAsk)
			}
			return nil
		},
	}
	of.Register(cmd.Flags(), config.Commands)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the decision as JSON")
	return cmd
}
