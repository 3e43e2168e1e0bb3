package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/jobs"
)

// jobFlags are the flags of the job commands: the configuration (so the
// same workspace and job store as the server) and --json.
type jobFlags struct {
	options cliconf.Flags
	json    bool
}

func (j *jobFlags) register(cmd *cobra.Command) {
	j.options.Register(cmd.Flags(), config.Commands)
	cmd.Flags().BoolVar(&j.json, "json", false, "print the structured result as JSON")
}

// manager opens the workspace's job store, with the configured sandbox for
// the jobs it starts; the caller closes both.
func (j *jobFlags) manager(cmd *cobra.Command) (*jobs.Manager, *shellcap.Shell, error) {
	sh, eff, err := j.options.Shell(cmd.Flags())
	if err != nil {
		return nil, nil, err
	}
	if eff.UsesContainer() && cmd.Name() == "start" {
		sh.Close()
		return nil, nil, errContainerOnly("shellcap start")
	}
	jo := cliconf.JobOptions(sh, eff)
	jo.StopOnClose = false // a job started here outlives the command that started it, by design
	m, err := jobs.New(sh, jo)
	if err != nil {
		sh.Close()
		return nil, nil, j.options.Keyed("jobs.Options", err)
	}
	return m, sh, nil
}

// jobCommand builds a job subcommand around do.
func jobCommand(use, short string, args cobra.PositionalArgs, do func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error), flags func(*cobra.Command)) *cobra.Command {
	var jf jobFlags
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, args []string) error {
			m, sh, err := jf.manager(cmd)
			if err != nil {
				return err
			}
			defer sh.Close()
			defer m.Close()
			r, err := do(cmd, m, args)
			if err != nil {
				return err
			}
			if err := emit(cmd, r, jf.json); err != nil {
				return err
			}
			if jobError(r) != "" {
				return exitStatus(exitFailure)
			}
			return nil
		},
	}
	jf.register(cmd)
	if flags != nil {
		flags(cmd)
	}
	return cmd
}

func newJobCmds() []*cobra.Command {
	var (
		stdin   bool
		newOnly bool
		wait    = timeoutFlag(jobs.DefaultWait)
		keep    bool
		eof     bool
	)
	start := jobCommand("start [flags] -- COMMAND", "Start a background command and print its ID", cobra.MinimumNArgs(1),
		func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error) {
			return m.Start(cmd.Context(), jobs.StartRequest{Command: strings.Join(args, " "), Stdin: stdin})
		}, func(c *cobra.Command) {
			c.Flags().BoolVar(&stdin, "stdin", false, "keep the command's stdin open for shellcap input")
		})
	check := jobCommand("check ID", "Print a background command's status and recent output", cobra.ExactArgs(1),
		func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error) {
			return m.Check(cmd.Context(), jobs.CheckRequest{ID: idArg(args[0]), NewOnly: newOnly})
		}, func(c *cobra.Command) {
			c.Flags().BoolVar(&newOnly, "new", false, "only output since the last check")
		})
	waitCmd := jobCommand("wait ID", "Wait for a background command to finish", cobra.ExactArgs(1),
		func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error) {
			return m.Wait(cmd.Context(), idArg(args[0]), time.Duration(wait))
		}, func(c *cobra.Command) {
			c.Flags().VarP(&wait, "timeout", "t", "how long to wait at most: a duration (2m) or seconds")
		})
	stop := jobCommand("stop ID", "Stop a background command and print its final output", cobra.ExactArgs(1),
		func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error) {
			return m.Stop(cmd.Context(), jobs.StopRequest{ID: idArg(args[0]), Keep: keep})
		}, func(c *cobra.Command) {
			c.Flags().BoolVar(&keep, "keep", false, "keep the job's logs")
		})
	input := jobCommand("input ID TEXT", "Write TEXT to a background command's stdin", cobra.ExactArgs(2),
		func(cmd *cobra.Command, m *jobs.Manager, args []string) (texter, error) {
			return m.Input(cmd.Context(), jobs.InputRequest{ID: idArg(args[0]), Text: args[1], EOF: eof})
		}, func(c *cobra.Command) {
			c.Flags().BoolVar(&eof, "eof", false, "close stdin after the text")
		})
	list := jobCommand("jobs", "List the workspace's background commands (the same store the server uses)", cobra.NoArgs,
		func(cmd *cobra.Command, m *jobs.Manager, _ []string) (texter, error) {
			return m.List(cmd.Context())
		}, nil)
	return []*cobra.Command{start, check, waitCmd, stop, input, list}
}

// idArg is an ID argument, cut to 100 characters for the messages that
// repeat it: a longer one names no job either way (an ID is 32).
func idArg(s string) string { return cutFlag(s) }

// jobError is the message of a result that reports a failure (an unknown
// ID, a refused command), or "".
func jobError(r texter) string {
	switch r := r.(type) {
	case *jobs.StartResult:
		return errMessage(r.Err)
	case *jobs.JobResult:
		return errMessage(r.Err)
	case *jobs.InputResult:
		return errMessage(r.Err)
	}
	return ""
}

// errMessage is err's message, "" for nil.
func errMessage(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
