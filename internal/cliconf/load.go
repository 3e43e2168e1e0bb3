package cliconf

import (
	"github.com/shellcap/shellcap/internal/core"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/config"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/sandbox"
)

// FlagOf names the flags that set each key, for `config print`.
var FlagOf = func() map[string]string {
	m := map[string]string{}
	for _, k := range config.Keys() {
		m[k.Key] = "--" + k.Flag
	}
	m["policy.denied_commands"] += " or --no-deny-list"
	m["sandbox_network"] += " or --allow-host"
	m["sandbox_allow"] += " or --allow-host"
	m["session.start_in_root"] += " or --confine"
	return m
}()

func flagLayer(f *config.File, policyFile string) config.Layer {
	return config.Layer{File: f, Name: "flags", Origin: func(key string) string {
		if policyFile != "" && len(key) > 7 && key[:7] == "policy." {
			return "flag --policy " + policyFile + " (or a policy flag)"
		}
		if name, ok := FlagOf[key]; ok {
			return "flag " + name
		}
		return ""
	}}
}

// Loaded is the effective configuration and where it came from.
type Loaded struct {
	Eff     *config.File
	Origins config.Origins
	// Notes are the keys of untrusted workspace files that were refused
	// or merged, by file.
	Notes []FileNote
}

// FileNote is a note on a key of an untrusted workspace file.
type FileNote struct {
	Path string
	config.Note
}

// Load merges, in rising precedence:
//
//  1. the user's configuration file: --config, else $SHELLCAP_CONFIG,
//     else shellcap.yaml (.yml, .json) in the user's configuration
//     directory ($XDG_CONFIG_HOME/shellcap or ~/.config/shellcap);
//  2. shellcap.yaml (.yml, .json) in the workspace and in the current
//     directory: whole when `shellcap config trust` recorded it with its
//     present content, else only the keys that tighten the other layers
//     (config.Tighten);
//  3. the SHELLCAP_* environment;
//  4. the flags, then extra (more flags).
//
// Each file loaded is logged with its path, and each key of a workspace
// file that was refused.
func (o *Flags) Load(f *pflag.FlagSet, extra ...*config.File) (*Loaded, error) {
	home := os.Getenv("HOME")
	userDir, dirErr := config.UserDir(os.Getenv)
	var user config.Layer
	userPath, how := o.configPath, "--config"
	if userPath == "" {
		userPath, how = os.Getenv(config.EnvConfigFile), "$"+config.EnvConfigFile
	}
	if userPath != "" {
		p, err := config.ExpandHome(userPath, home)
		if err != nil {
			return nil, err
		}
		userPath = p
	} else if dirErr == nil {
		userPath, _ = config.Find(userDir)
		how = "the user's configuration directory"
	}

	env, err := config.FromEnv(os.Environ())
	if err != nil {
		return nil, err
	}
	flags, err := o.Layer(f)
	if err != nil {
		return nil, err
	}
	above := []config.Layer{config.EnvLayer(env), flagLayer(flags, o.policyFile)}
	for _, x := range extra {
		above = append(above, flagLayer(x, ""))
	}
	workspace := func(layers ...config.Layer) (string, error) {
		eff, _ := config.MergeLayers(layers...)
		ws := ""
		if eff.Workspace != nil {
			ws = *eff.Workspace
		}
		if ws, err = config.ExpandHome(ws, home); err != nil {
			return "", err
		}
		if ws == "" {
			ws = "."
		}
		return filepath.Abs(ws)
	}
	// Where commands can write, nothing is the user's own: a file found in
	// the user's directory is a workspace file when the workspace holds
	// that directory (-w ~), and so is the trust store.
	ws, err := workspace(above...)
	if err != nil {
		return nil, err
	}
	var wsPaths []string
	if userPath != "" {
		if how == "the user's configuration directory" && config.Within(userPath, ws) {
			wsPaths = append(wsPaths, userPath)
		} else {
			file, err := config.Load(userPath)
			if err != nil {
				return nil, err
			}
			slog.Info("config: loaded", "path", userPath, "from", how)
			user = config.FileLayer(file, userPath, "")
			if ws, err = workspace(append([]config.Layer{user}, above...)...); err != nil {
				return nil, err
			}
			if config.Within(userPath, ws) {
				slog.Warn("config: the configuration file you named lies in the workspace, where commands may rewrite it for the next run; keep it outside", "path", userPath, "from", how)
			}
		}
	}
	var store *config.TrustStore
	switch {
	case dirErr != nil:
		slog.Warn("config: no trust store, so no workspace file is trusted", "reason", dirErr)
	case config.Within(userDir, ws):
		slog.Warn("config: the trust store lies in the workspace, where commands may write it, so no workspace file is trusted", "dir", userDir, "workspace", ws)
	default:
		store = &config.TrustStore{Path: filepath.Join(userDir, config.TrustFileName)}
	}
	cwd, _ := os.Getwd()
	for _, dir := range []string{ws, cwd} {
		if p, ok := config.Find(dir); ok && p != userPath && !containsSame(wsPaths, p) {
			wsPaths = append(wsPaths, p)
		}
	}

	out := &Loaded{}
	layers := []config.Layer{user}
	for _, p := range wsPaths {
		w, err := config.LoadWorkspaceFile(p, store)
		if err != nil {
			return nil, err
		}
		if w.Trusted {
			slog.Warn("config: loaded a trusted workspace file", "path", w.Path)
			layers = append(layers, config.FileLayer(w.File, w.Path, "(trusted workspace file)"))
			continue
		}
		base, _ := config.MergeLayers(append(layers, above...)...)
		accepted, notes := config.Tighten(base, w.File)
		slog.Warn("config: loaded an untrusted workspace file, keeping only what tightens the configuration (`shellcap config trust` accepts it whole)", "path", w.Path)
		for _, n := range notes {
			out.Notes = append(out.Notes, FileNote{w.Path, n})
			if !n.Accepted {
				slog.Warn("config: ignored a key of an untrusted workspace file", "path", w.Path, "key", n.Key, "reason", n.Msg)
			}
		}
		layers = append(layers, config.FileLayer(accepted, w.Path, "(untrusted workspace file: tightening only)"))
	}
	out.Eff, out.Origins = config.MergeLayers(append(layers, above...)...)
	for _, p := range []**string{&out.Eff.Workspace, &out.Eff.Shell} {
		if *p != nil {
			s, err := config.ExpandHome(**p, home)
			if err != nil {
				return nil, err
			}
			*p = &s
		}
	}
	return out, nil
}

func containsSame(paths []string, p string) bool {
	for _, q := range paths {
		if a, b := filepath.Clean(q), filepath.Clean(p); a == b {
			return true
		}
		if fa, err := os.Stat(q); err == nil {
			if fb, err := os.Stat(p); err == nil && os.SameFile(fa, fb) {
				return true
			}
		}
	}
	return false
}

// Effective is the merged configuration of Load; it keeps its origins
// for Keyed.
func (o *Flags) Effective(f *pflag.FlagSet, extra ...*config.File) (*config.File, error) {
	l, err := o.Load(f, extra...)
	if err != nil {
		return nil, err
	}
	o.origins = l.Origins
	return l.Eff, nil
}

// LibraryOptions turns a configuration into the library's Options, with
// the CLI's logger; OpenShell adds the sandbox (PlanSandbox).
func LibraryOptions(eff *config.File) (shellcap.Options, error) {
	opts, err := eff.Options()
	if err != nil {
		return opts, err
	}
	opts.Logger = slog.Default()
	return opts, nil
}

// JobOptions are the job Manager's options for sh: the configuration's
// jobs.* keys, and jobs that run in the Shell's own sandbox, or in none
// when the Shell has none to give.
func JobOptions(sh *shellcap.Shell, eff *config.File) jobs.Options {
	o := eff.JobOptions()
	if _, ok := core.Of(sh).Confiner.(unconfined); ok {
		o.Confiner = sandbox.Confiner(unconfinedJobs)
	}
	return o
}

// Shell builds the Shell of the effective configuration; extra layers go
// above the flags. The caller closes the Shell. A sandbox warning is
// logged.
func (o *Flags) Shell(f *pflag.FlagSet, extra ...*config.File) (*shellcap.Shell, *config.File, error) {
	eff, err := o.Effective(f, extra...)
	if err != nil {
		return nil, nil, err
	}
	opts, err := LibraryOptions(eff)
	if err != nil {
		return nil, nil, err
	}
	sh, c, err := OpenShell(opts, PlanSandbox(eff))
	if err != nil {
		return nil, nil, o.Keyed("shellcap.Options", err)
	}
	if c.Warning != "" {
		slog.Warn("shellcap: " + c.Warning)
	}
	return sh, eff, nil
}

// Options returns the Options of the effective configuration (without its
// sandbox, which only OpenShell builds).
func (o *Flags) Options(f *pflag.FlagSet) (shellcap.Options, *config.File, error) {
	eff, err := o.Effective(f)
	if err != nil {
		return shellcap.Options{}, nil, err
	}
	opts, err := LibraryOptions(eff)
	return opts, eff, err
}
