package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/shellcap/shellcap/mcpserver"
	shtemporal "github.com/shellcap/shellcap/temporal"
)

// runServe serves the MCP front door until SIGINT or SIGTERM.
func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var addr, tokenFile string
	var stdio bool
	c.register(fs, "a workspace the front door serves, HOST:PATH (repeat for more; the first is the default)")
	fs.StringVar(&addr, "addr", "127.0.0.1:7777", "the HTTP address to listen on")
	fs.StringVar(&tokenFile, "token-file", "", "a file (or /dev/fd/N) holding the bearer token clients must send; required beyond loopback")
	fs.BoolVar(&stdio, "stdio", false, "serve one MCP client on stdin and stdout instead of HTTP")
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
	fd, err := shtemporal.NewFrontDoor(cl, shtemporal.FrontDoorOptions{Workspaces: refs})
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
