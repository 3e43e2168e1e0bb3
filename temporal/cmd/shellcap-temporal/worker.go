package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/worker"

	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/internal/cliconf"
	"github.com/shellcap/shellcap/jobs"
	shtemporal "github.com/shellcap/shellcap/temporal"
	"github.com/shellcap/shellcap/toolset"
)

// runWorker serves the workspaces of one host until SIGINT or SIGTERM.
// Each workspace's Shell is the one `shellcap serve --workspace W` would
// build, from the same option flags and sources (see workerConfig).
func runWorker(args []string, stderr io.Writer) error {
	fs := pflag.NewFlagSet("worker", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	var host string
	var of cliconf.Flags
	c.register(fs, workerSynopsis, workerAbout, "an absolute path of a workspace this host serves (repeat for more)")
	fs.StringVar(&host, "host", "", "this host's name: the worker polls shellcap-host-NAME (required)")
	// The workspace key is the worker's repeatable --workspace; every
	// other key of `shellcap serve` has its flag.
	of.RegisterExcept(fs, config.Serve, "workspace")
	// The flags of what the worker refuses (an MCP server's settings, a
	// container executor) parse, to be refused by name, but --help does
	// not offer them.
	for _, k := range config.Keys() {
		if serverOnly(k) || k.Key == "executor" || strings.HasPrefix(k.Key, "container.") {
			_ = fs.MarkHidden(k.Flag)
		}
	}
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if host == "" {
		return usageError{fmt.Errorf("worker: --host NAME is required")}
	}
	if err := shtemporal.ValidateHost(host); err != nil {
		return usageError{fmt.Errorf("worker: --host %q: %v", host, err)}
	}
	for _, p := range c.workspaces {
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return usageError{fmt.Errorf("worker: --workspace %q: give an absolute, clean path", p)}
		}
	}
	if err := refuseServerFlags(fs); err != nil {
		return usageError{err}
	}
	logger, err := c.logger(stderr)
	if err != nil {
		return err
	}
	// The configuration's notes (files loaded, keys of workspace files
	// refused, sandbox warnings) go to the worker's log.
	slog.SetDefault(logger)
	wc := &workerConfig{flags: &of, fs: fs, logger: logger, ready: map[string]shtemporal.WorkspaceSetup{}}
	defer wc.close()
	keyDir, err := wc.openAll(c.workspaces)
	if err != nil {
		return err
	}
	cl, err := c.dial(logger)
	if err != nil {
		return err
	}
	defer cl.Close()
	w, err := shtemporal.NewWorker(cl, shtemporal.WorkerOptions{
		Host: host, Workspaces: c.workspaces, Logger: logger,
		OpenWorkspace: wc.open,
		Jobs:          jobs.Options{KeyDir: keyDir},
	})
	if err != nil {
		return err
	}
	logger.Info("shellcap-temporal: worker polling", "queue", shtemporal.TaskQueue(host), "workspaces", c.workspaces)
	return w.Run(worker.InterruptCh())
}

// serverOnly reports the keys of `shellcap serve` that configure its MCP
// server rather than the commands: the worker serves no MCP client (the
// front door does), so their flags are refused and, from a file or the
// environment, ignored with a warning.
func serverOnly(k config.Key) bool { return !workerKey(k) }

// workerKey reports the keys a worker honours: those of the commands, and
// two server keys that shape how the tools run them: jobs.stop_on_close
// (the worker's job managers honour it) and server.foreground_timeout
// (run_command promotes a long command to a job of the workspace, as
// `shellcap serve --foreground-timeout` does). The others (server.addr,
// server.token, tools, ...) configure an MCP server: the front door's.
func workerKey(k config.Key) bool {
	return k.Scope == config.Commands || k.Key == "jobs.stop_on_close" || k.Key == "server.foreground_timeout"
}

// refuseServerFlags refuses the flags of the MCP server's keys, which
// would mean nothing to a worker.
func refuseServerFlags(fs *pflag.FlagSet) error {
	for _, k := range config.Keys() {
		if serverOnly(k) && fs.Changed(k.Flag) {
			return fmt.Errorf("worker: --%s (%s) configures an MCP server, and the worker serves none: give the front door's settings to `shellcap serve --temporal`", k.Flag, k.Key)
		}
	}
	return nil
}

// workerConfig builds each workspace's Shell from the command line's
// option flags, as `shellcap serve --workspace W` does: the user's
// configuration file (--config, $SHELLCAP_CONFIG, the user's directory),
// the workspace's own shellcap.yaml (only what tightens, unless trusted),
// SHELLCAP_*, the flags, and W as the workspace above them all.
type workerConfig struct {
	flags  *cliconf.Flags
	fs     *pflag.FlagSet
	logger *slog.Logger

	// mu guards ready and the default logger while a workspace is
	// opened.
	mu sync.Mutex
	// ready are the setups opened at start and not yet handed to the
	// worker.
	ready map[string]shtemporal.WorkspaceSetup
}

// openAll opens every workspace at start, so that a configuration the
// worker cannot honour stops it before it polls, and logs what each
// workspace's sandbox enforces. It returns the job key directory, which
// every workspace must share (the worker keeps one).
func (wc *workerConfig) openAll(paths []string) (string, error) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	keyDir := ""
	for i, p := range paths {
		set, err := wc.openOne(p)
		if err != nil {
			return "", err
		}
		wc.ready[p] = set
		if i == 0 {
			keyDir = set.Jobs.KeyDir
		} else if set.Jobs.KeyDir != keyDir {
			return "", fmt.Errorf("workspace %s: jobs.key_dir %q differs from %q, that of workspace %s: a worker keeps one key directory", p, set.Jobs.KeyDir, keyDir, paths[0])
		}
	}
	return keyDir, nil
}

// open is WorkerOptions.OpenWorkspace: the setup opened at start, or, when
// the worker asks again (its first attempt failed), a new one.
func (wc *workerConfig) open(path string) (shtemporal.WorkspaceSetup, error) {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	if set, ok := wc.ready[path]; ok {
		delete(wc.ready, path)
		return set, nil
	}
	return wc.openOne(path)
}

// openOne resolves the configuration of workspace path and opens its
// Shell; wc.mu is held.
func (wc *workerConfig) openOne(path string) (shtemporal.WorkspaceSetup, error) {
	logger := wc.logger.With("workspace", path)
	prev := slog.Default()
	slog.SetDefault(logger)
	defer slog.SetDefault(prev)
	l, err := wc.flags.Load(wc.fs, &config.File{Workspace: &path})
	if err != nil {
		return shtemporal.WorkspaceSetup{}, fmt.Errorf("workspace %s: %w", path, err)
	}
	eff := l.Eff
	if eff.UsesContainer() {
		return shtemporal.WorkspaceSetup{}, fmt.Errorf("workspace %s: executor: container (from %s): the worker runs commands on its host, not in a container; unset executor for the worker", path, originOf(l.Origins, "executor"))
	}
	for _, k := range config.Keys() {
		if o, ok := l.Origins[k.Key]; ok && o != "" && serverOnly(k) {
			logger.Warn("config: the worker ignores an MCP server's key", "key", k.Key, "from", o)
		}
	}
	sh, note, err := cliconf.OpenServer(eff, toolset.Approve)
	if err != nil {
		return shtemporal.WorkspaceSetup{}, fmt.Errorf("workspace %s: %w", path, config.KeyError("shellcap.Options", err, l.Origins))
	}
	logger.Info("shellcap-temporal: sandbox", "enforces", note)
	set := shtemporal.WorkspaceSetup{Shell: sh, Jobs: cliconf.JobOptions(sh, eff), Session: eff.SessionOptions()}
	if d := eff.Server.ForegroundTimeout; d != nil {
		if *d < 0 {
			sh.Close()
			return shtemporal.WorkspaceSetup{}, fmt.Errorf("workspace %s: server.foreground_timeout (from %s): negative %v", path, originOf(l.Origins, "server.foreground_timeout"), *d)
		}
		set.ForegroundTimeout = *d
	}
	return set, nil
}

// originOf names where key's value came from.
func originOf(origins config.Origins, key string) string {
	if o := origins[key]; o != "" {
		return o
	}
	return "the configuration"
}

// close closes the Shells the worker never asked for.
func (wc *workerConfig) close() {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	for p, set := range wc.ready {
		set.Shell.Close()
		delete(wc.ready, p)
	}
}
