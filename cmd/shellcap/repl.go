package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"

	"github.com/shellcap/shellcap/session"
)

func newReplCmd() *cobra.Command {
	var (
		of      cliconf.Flags
		confine bool
	)
	cmd := &cobra.Command{
		Use:   "repl",
		Short: "An interactive stateful session that shows what the model would read",
		Long: `Start the same persistent bash session the bash tool gives a model, and show,
after each command, exactly the text the model would read. Variables, functions,
cd and export carry over. A line ending in \ continues on the next line.
:restart starts a fresh session; :quit or end-of-file leaves.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sh, eff, err := of.Shell(cmd.Flags())
			if err != nil {
				return err
			}
			defer sh.Close()
			if eff.UsesContainer() {
				return errContainerOnly("shellcap repl")
			}
			opts := eff.SessionOptions()
			if cmd.Flags().Changed("confine") {
				opts.StartInRoot = confine
			}
			sess, err := session.New(cmd.Context(), sh, opts)
			if err != nil {
				return of.Keyed("session.Options", err)
			}
			defer sess.Close()
			return repl(cmd, sess)
		},
	}
	of.Register(cmd.Flags(), config.Commands)
	cmd.Flags().BoolVar(&confine, "confine", false, "start every command in the workspace root (as --session-start-in-root)")
	return cmd
}

// repl reads commands until end-of-file and prints what the model reads.
func repl(cmd *cobra.Command, sess *session.Session) error {
	in := bufio.NewScanner(cmd.InOrStdin())
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := cmd.OutOrStdout()
	interactive := isTerminal(out)
	prompt := func(p string) {
		if interactive {
			fmt.Fprint(out, colour(out, "1", p))
		}
	}
	var pending []string
	prompt("shellcap> ")
	for in.Scan() {
		line := in.Text()
		if rest, ok := strings.CutSuffix(line, "\\"); ok {
			pending = append(pending, rest)
			prompt("... ")
			continue
		}
		command := strings.Join(append(pending, line), "\n")
		pending = nil
		switch strings.TrimSpace(command) {
		case "":
		case ":quit", ":q":
			return nil
		case ":restart":
			if err := sess.Restart(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(out, colour(out, "2", "(session restarted)"))
		default:
			res, err := sess.Run(cmd.Context(), session.Request{Command: command})
			if err != nil {
				return err
			}
			fmt.Fprintln(out, colour(out, "2", "── the model reads ──"))
			fmt.Fprintln(out, res.Text())
		}
		prompt("shellcap> ")
	}
	return in.Err()
}
