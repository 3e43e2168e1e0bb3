package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/mcpserver"
	shtemporal "github.com/shellcap/shellcap/temporal"
)

// runServe serves the MCP front door until SIGINT or SIGTERM.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var addr, tokenFile string
	var stdio bool
	c.register(fs, serveSynopsis, serveAbout, "a workspace the front door serves, HOST:PATH (repeat for more; the first is the default)")
	fs.StringVar(&addr, "addr", "127.0.0.1:7777", "the HTTP address to listen on")
	fs.StringVar(&tokenFile, "token-file", "", "a file (or /dev/fd/N) holding the bearer token clients must send; required beyond loopback")
	fs.BoolVar(&stdio, "stdio", false, "serve one MCP client on stdin and stdout instead of HTTP")
	if err := refuseOptionFlags(fs, args); err != nil {
		return err
	}
	if err := c.parse(fs, args); err != nil {
		return err
	}
	var refs []shtemporal.WorkspaceRef
	for _, s := range c.workspaces {
		ref, err := shtemporal.ParseWorkspace(s)
		if err != nil {
			return usageError{fmt.Errorf("serve: --workspace: %v", err)}
		}
		refs = append(refs, ref)
	}
	if stdio && tokenFile != "" {
		return usageError{errors.New("serve: --token-file is for HTTP; a --stdio client is its own process's")}
	}
	token := ""
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return fmt.Errorf("token file: %w", err)
		}
		if token = strings.TrimSpace(string(data)); token == "" {
			return fmt.Errorf("token file %s is empty", tokenFile)
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
	// The front door offers the tools of the default workspace's worker,
	// with its limits; without an answer within DescribeWait, the
	// defaults (logged).
	fd, err := shtemporal.NewFrontDoor(cl, shtemporal.FrontDoorOptions{Workspaces: refs, Logger: logger})
	if err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{Remote: fd, Name: "shellcap", Logger: logger})
	if err != nil {
		return err
	}
	defer srv.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if stdio {
		return srv.ServeStdio(ctx, stdin, stdout)
	}
	return srv.ListenAndServe(ctx, mcpserver.HTTPOptions{Addr: addr, Token: token})
}

// refuseOptionFlags refuses, before parsing, the option flags of `shellcap
// serve` that configure the commands (--sandbox, --deny, --config, ...):
// the front door runs none, the workers of the workspaces' hosts do, so
// such a flag here would mean nothing. The front door's own flags
// (--workspace HOST:PATH, --addr, --token-file) are not refused. The
// front door reads no configuration file and no SHELLCAP_* variable.
func refuseOptionFlags(fs *pflag.FlagSet, args []string) error {
	var of cliconf.Flags
	options := pflag.NewFlagSet("options", pflag.ContinueOnError)
	of.Register(options, config.Serve)
	for _, a := range args {
		if a == "--" {
			return nil
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if fs.Lookup(name) != nil || options.Lookup(name) == nil {
			continue
		}
		for _, k := range config.Keys() {
			if k.Flag == name && !workerKey(k) {
				return usageError{fmt.Errorf("serve: --%s (%s) is a setting the Temporal front door does not take (its own: --workspace HOST:PATH, --addr, --token-file, --stdio, --namespace)", name, k.Key)}
			}
		}
		return usageError{fmt.Errorf("serve: --%s configures the commands, and the front door runs none: give it to `shellcap worker` on the workspace's host, whose commands it configures", name)}
	}
	return nil
}
