package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"go.temporal.io/sdk/worker"

	shtemporal "github.com/shellcap/shellcap/temporal"
)

// runWorker serves the workspaces of one host until SIGINT or SIGTERM.
func runWorker(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var host string
	c.register(fs, "an absolute path of a workspace this host serves (repeat for more)")
	fs.StringVar(&host, "host", "", "this host's name: the worker polls shellcap-host-NAME (required)")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if host == "" {
		return usageError{fmt.Errorf("worker: --host NAME is required")}
	}
	for _, p := range c.workspaces {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return usageError{fmt.Errorf("worker: --workspace %q: give an absolute, clean path", p)}
		}
	}
	logger, err := c.logger(stderr)
	if err != nil {
		return err
	}
	cl, err := c.dial(logger)
	if err != nil {
		return err
	}
	defer cl.Close()
	w, err := shtemporal.NewWorker(cl, shtemporal.WorkerOptions{Host: host, Workspaces: c.workspaces, Logger: logger})
	if err != nil {
		return err
	}
	logger.Info("shellcap-temporal: worker polling", "queue", shtemporal.TaskQueue(host), "workspaces", c.workspaces)
	return w.Run(worker.InterruptCh())
}
