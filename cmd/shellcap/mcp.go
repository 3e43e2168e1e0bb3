package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// serverFlags are the flags of the two server commands.
type serverFlags struct {
	options optionFlags
	tools   []string
}

func (s *serverFlags) register(cmd *cobra.Command) {
	s.options.register(cmd.Flags())
	cmd.Flags().StringSliceVar(&s.tools, "tools", nil, "tools to offer (default: all available)")
}

// server builds the Shell and the MCP server the flags describe; the
// caller closes the Shell.
func (s *serverFlags) server(cmd *cobra.Command) (*mcpserver.Server, *shellcap.Shell, error) {
	opts, err := s.options.options(cmd.Flags())
	if err != nil {
		return nil, nil, err
	}
	if opts.Approve == nil {
		opts.Approve = mcpserver.ElicitApprover
	}
	sh, err := shellcap.New(opts)
	if err != nil {
		return nil, nil, err
	}
	var tools []string
	if cmd.Flags().Changed("tools") {
		tools = s.tools
	}
	srv, err := mcpserver.New(mcpserver.Options{Shell: sh, Tools: tools, Version: version(), Logger: opts.Logger})
	if err != nil {
		sh.Close()
		return nil, nil, err
	}
	return srv, sh, nil
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
			return srv.MCP().Run(ctx, &mcp.IOTransport{Reader: nopCloser{cmd.InOrStdin()}, Writer: nopWriteCloser{cmd.OutOrStdout()}})
		},
	}
	sf.register(cmd)
	return cmd
}

func newServeCmd() *cobra.Command {
	var (
		sf   serverFlags
		http mcpserver.HTTPOptions
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the shell tools over streamable HTTP",
		Long: `Serve the shell tools over MCP's streamable HTTP transport with stateful
sessions. Listening beyond loopback requires --token (or SHELLCAP_TOKEN).`,
		Example: `  shellcap serve --addr 127.0.0.1:7777
  SHELLCAP_TOKEN=... shellcap serve --addr 0.0.0.0:7777`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if http.Token == "" {
				http.Token = os.Getenv("SHELLCAP_TOKEN")
			}
			srv, sh, err := sf.server(cmd)
			if err != nil {
				return err
			}
			defer sh.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return srv.ListenAndServe(ctx, http)
		},
	}
	sf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&http.Addr, "addr", "127.0.0.1:7777", "listen address")
	f.StringVar(&http.Token, "token", "", "bearer token clients must send (required beyond loopback)")
	f.StringSliceVar(&http.AllowedOrigins, "allow-origin", nil, "browser origins allowed besides loopback")
	f.DurationVar(&http.SessionIdleTimeout, "idle-timeout", 30*time.Minute, "close MCP sessions idle this long")
	return cmd
}
