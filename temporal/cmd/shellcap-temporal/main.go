// Command shellcap-temporal runs shellcap on Temporal: a worker per host
// that runs the commands of the workspaces it owns, and the MCP front door
// that agents connect to.
//
//	shellcap-temporal worker --temporal HOST:PORT --host NAME --workspace PATH... [option flags]
//	shellcap-temporal serve  --temporal HOST:PORT --workspace HOST:PATH... [--addr ADDR] [--token-file FILE]
//	shellcap-temporal serve  --temporal HOST:PORT --workspace HOST:PATH... --stdio
//
// The worker is configured like `shellcap serve` (the same option flags,
// configuration file, workspace-file tightening and SHELLCAP_* variables,
// through the core's internal/cliconf), per workspace it serves; the
// front door runs no commands and refuses the flags that configure them.
//
// The core CLI runs it for `shellcap worker ...` and `shellcap serve
// --temporal ...`. Install it with
//
//	(cd temporal && go install ./cmd/shellcap-temporal)   # in a shellcap checkout: the module builds against the core beside it
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// exitUsage is the exit status of a command line that does not parse;
// exitFailure that of any other failure.
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// The synopsis and description of each command, for its --help and the
// program's usage.
const (
	workerSynopsis = "shellcap-temporal worker --temporal HOST:PORT --host NAME --workspace PATH... [--namespace NS] [option flags]"
	workerAbout    = `worker runs the commands of the workspaces of host NAME (its task queue is
shellcap-host-NAME). It is configured like shellcap serve: the same option
flags (--sandbox, --deny, --config, ...), SHELLCAP_* variables, your
configuration file and each workspace's own shellcap.yaml (which only
tightens, unless trusted), per workspace. Commands run in the
workspace-write sandbox without network by default.
`
	serveSynopsis = "shellcap-temporal serve --temporal HOST:PORT --workspace HOST:PATH... [--addr ADDR] [--token-file FILE] [--stdio] [--namespace NS]"
	serveAbout    = `serve is the MCP front door: each tool call becomes a call on the session
workflow of its workspace (the first --workspace, or the one an HTTP client
names in the Shellcap-Workspace header). It runs no commands: it refuses
the option flags that configure them (give those to the workers).
`
)

const usage = "usage:\n  " + workerSynopsis + "\n  " + serveSynopsis + "\n\n" + workerAbout + "\n" + serveAbout +
	"\nshellcap-temporal worker --help and serve --help list their flags.\n"

// run executes the command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "worker":
		err = runWorker(args[1:], stderr)
	case "serve":
		err = runServe(args[1:], stdin, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "shellcap-temporal: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "shellcap-temporal: %v\n", err)
		return exitUsage
	case errors.Is(err, pflag.ErrHelp):
		return 0
	default:
		fmt.Fprintf(stderr, "shellcap-temporal: %v\n", err)
		return exitFailure
	}
}

// usageError is a command line that does not parse.
type usageError struct{ error }

// common are the flags of both commands.
type common struct {
	temporal, namespace, logLevel string
	workspaces                    []string
}

// register defines the common flags on fs, and its help: the command's
// synopsis, what it does, then every flag.
func (c *common) register(fs *pflag.FlagSet, synopsis, about, workspaceHelp string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n%s\nflags:\n", synopsis, about)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.temporal, "temporal", "", "the Temporal frontend, HOST:PORT (required)")
	fs.StringVar(&c.namespace, "namespace", "default", "the Temporal namespace")
	fs.StringVar(&c.logLevel, "log-level", "warn", "log level on stderr: debug, info, warn, error")
	fs.StringArrayVar(&c.workspaces, "workspace", nil, workspaceHelp)
}

// parse parses args into fs and checks what both commands need.
func (c *common) parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s: unexpected arguments %q", fs.Name(), fs.Args())}
	}
	if c.temporal == "" {
		return usageError{fmt.Errorf("%s: --temporal HOST:PORT is required", fs.Name())}
	}
	if len(c.workspaces) == 0 {
		return usageError{fmt.Errorf("%s: give at least one --workspace", fs.Name())}
	}
	return nil
}

// logger is the process's logger on stderr.
func (c *common) logger(stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(c.logLevel))); err != nil {
		return nil, usageError{fmt.Errorf("--log-level: %v", err)}
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})), nil
}

// dial connects to Temporal.
func (c *common) dial(logger *slog.Logger) (client.Client, error) {
	cl, err := client.Dial(client.Options{HostPort: c.temporal, Namespace: c.namespace, Logger: sdklog.NewStructuredLogger(logger)})
	if err != nil {
		return nil, fmt.Errorf("cannot reach Temporal at %s (namespace %s): %w", c.temporal, c.namespace, err)
	}
	return cl, nil
}
