package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/envprobe"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/mcpserver"
)

// serverFlags are the flags of the two server commands.
type serverFlags struct {
	options cliconf.Flags
}

func (s *serverFlags) register(cmd *cobra.Command, scope config.Scope) {
	s.options.Register(cmd.Flags(), scope)
}

// closer ends a server's Manager and Shell, leaving jobs running.
type closer struct {
	sh  *shellcap.Shell
	m   *jobs.Manager
	x   io.Closer // the container executor, if any
	srv *mcpserver.Server
}

func (c *closer) Close() error {
	if c.srv != nil {
		c.srv.Close()
	}
	if c.x != nil {
		c.x.Close()
	}
	c.m.Close()
	return c.sh.Close()
}

// server builds the Shell, the job Manager and the MCP server the flags
// describe; the caller closes the returned closer.
func (s *serverFlags) server(cmd *cobra.Command) (*mcpserver.Server, io.Closer, error) {
	eff, err := s.options.Effective(cmd.Flags())
	if err != nil {
		return nil, nil, err
	}
	return s.build(eff)
}

// build makes the Shell and the MCP server of an effective configuration.
func (s *serverFlags) build(eff *config.File) (*mcpserver.Server, io.Closer, error) {
	sh, confinedNote, err := cliconf.OpenServer(eff, mcpserver.ElicitApprover)
	if err != nil {
		return nil, nil, s.options.Keyed("shellcap.Options", err)
	}
	var snap *envprobe.Snapshot
	// No snapshot for a container (it would describe the host, not the
	// image) nor for a read-only workspace (no command tools are
	// offered). A probe that fails is "not checked" in the snapshot,
	// never a reason not to start.
	if !eff.UsesContainer() && !sh.ReadOnly() {
		if snap, err = envprobe.Probe(context.Background(), sh, probeOptions(eff)); err != nil {
			sh.Close()
			return nil, nil, err
		}
	}
	m, err := jobs.New(sh, cliconf.JobOptions(sh, eff))
	if err != nil {
		sh.Close()
		return nil, nil, s.options.Keyed("jobs.Options", err)
	}
	c := &closer{sh: sh, m: m}
	mo := mcpserver.Options{Shell: sh, Jobs: m, Tools: eff.Tools, Instructions: confinedNote, Environment: snap, Version: version(), Logger: slog.Default(),
		ShareJobs:         deref(eff.Server.ShareJobs, false),
		ForegroundTimeout: deref(eff.Server.ForegroundTimeout, 0),
		Session:           eff.SessionOptions(),
	}
	if eff.UsesContainer() {
		x, err := containerExecutor(sh, eff)
		if err != nil {
			c.Close()
			return nil, nil, s.options.Keyed("container.Options", err)
		}
		c.x = x
		mo.Executor = x
		mo.Jobs = nil // the job tools would run on the host: see executor.go
		mo.Instructions = executorNote(x, eff)
	}
	srv, err := mcpserver.New(mo)
	if err != nil {
		c.Close()
		return nil, nil, s.options.Keyed("mcpserver.Options", err)
	}
	c.srv = srv
	return srv, c, nil
}

func newMCPCmd() *cobra.Command {
	var sf serverFlags
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the shell tools over MCP on stdio",
		Long: `Serve the shell tools to an MCP client over stdio. With no flags the current
directory is the workspace. Logs go to stderr; stdout is the protocol.`,
		Example: `  claude mcp add shellcap -- shellcap mcp --workspace ~/src/project`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv, sh, err := sf.server(cmd)
			if err != nil {
				return err
			}
			defer sh.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.ServeStdio(ctx, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	sf.register(cmd, config.Servers)
	return cmd
}

func newServeCmd() *cobra.Command {
	var sf serverFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the shell tools over streamable HTTP",
		Long: `Serve the shell tools over MCP's streamable HTTP transport. Clients of
protocol 2026-07-28 are served statelessly, older ones in sessions; each
session has its own bash shell, job notices and remembered approvals, and
lists only its own jobs (unless --share-jobs). Listening beyond loopback
requires a bearer token of at least 16 bytes: --token-file (a file or
/dev/fd/N), SHELLCAP_TOKEN, or server.token in the configuration file.
A pipe (--token-file /dev/fd/N) is safest: it is read and closed at start.
A token given in SHELLCAP_TOKEN is moved out of the environment at start
(the server re-executes itself), so commands cannot read it from
/proc/PID/environ. A regular token file stays readable to unsandboxed
commands of the same user; --token shows it in /proc/PID/cmdline.
On SIGTERM or SIGINT every call in flight is cancelled and its command's
process group stopped; commands die with the server even on SIGKILL.
With --temporal HOST:PORT (and --workspace HOST:PATH, repeatable) the MCP
front door of a Temporal fleet is served instead, by shellcap-temporal (see
shellcap worker).`,
		Example: `  shellcap serve --addr 127.0.0.1:7777
  shellcap serve --addr 0.0.0.0:7777 --token-file ~/.config/shellcap/token
  shellcap serve --addr 0.0.0.0:7777 --token-file /dev/fd/3 3< <(pass show shellcap)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := dropTokenFromEnv(); err != nil {
				return err
			}
			eff, err := sf.options.Effective(cmd.Flags())
			if err != nil {
				return err
			}
			s := eff.Server
			tok := deref(s.Token, "")
			if s.TokenFile != nil {
				if tok != "" {
					return errors.New("give the bearer token once: server.token (--token, SHELLCAP_TOKEN) or server.token_file (--token-file)")
				}
				if tok, err = readTokenFile(*s.TokenFile); err != nil {
					return err
				}
			}
			srv, sh, err := sf.build(eff)
			if err != nil {
				return err
			}
			defer sh.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = srv.ListenAndServe(ctx, mcpserver.HTTPOptions{
				Addr:               deref(s.Addr, "127.0.0.1:7777"),
				Token:              tok,
				AllowedOrigins:     s.AllowedOrigins,
				MaxBodyBytes:       deref(s.MaxBodyBytes, 0),
				SessionIdleTimeout: deref(s.SessionIdleTimeout, 0),
				MaxSessions:        deref(s.MaxSessions, 0),
			})
			return sf.options.Keyed("mcpserver.HTTPOptions", err)
		},
	}
	sf.register(cmd, config.Serve)
	return cmd
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
