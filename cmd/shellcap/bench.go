package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap/internal/bench"
)

func newBenchCmd() *cobra.Command {
	var (
		calls int
		size  byteSize = 1 << 30
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure shellcap against the raw limits of this machine",
		Long: `Measure shellcap against the raw limits of this machine, in the same run:
the per-call cost of Run("true") against spawning bash -c true directly, of a
sandboxed Run("true") against an unsandboxed one, and the throughput and memory of reading a large output against a plain pipe read.
Prints a Markdown table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := os.MkdirTemp("", "shellcap-bench-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(ws)
			rows, err := bench.RunTrue(cmd.Context(), ws, calls)
			if err != nil {
				return err
			}
			pc, err := bench.PolicyCheck(cmd.Context(), ws, 30)
			if err != nil {
				return err
			}
			rows = append(rows, pc)
			if sb, err := bench.SandboxedRunTrue(cmd.Context(), ws, calls); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "shellcap: sandbox not measured: %v\n", err)
			} else {
				rows = append(rows, sb)
			}
			big, err := bench.LargeOutput(cmd.Context(), ws, int64(size))
			if err != nil {
				return err
			}
			rows = append(rows, big...)
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, "| measurement | shellcap | raw | ratio | target |")
			fmt.Fprintln(out, "|---|---|---|---|---|")
			for _, r := range rows {
				fmt.Fprintln(out, r)
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 200, "calls of Run(\"true\") (and as many raw spawns)")
	cmd.Flags().Var(&size, "size", "output size for the throughput run")
	return cmd
}
