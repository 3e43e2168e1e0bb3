package envprobe

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// DefaultTools are the tools probed when Options.Tools is nil. When
// python3 is missing, python is probed in its place.
var DefaultTools = []string{"git", "go", "node", "python3", "docker"}

// DefaultTimeout bounds each probe when Options.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Options says what to probe. The zero value probes DefaultTools with a
// 5 s limit per probe.
type Options struct {
	// Tools lists the programs whose versions are reported, by name as
	// found on the command's PATH. Nil means DefaultTools; an empty list
	// probes no tools. A name that is not a plain program name (letters,
	// digits, and . _ + - after the first character) is never run and is
	// reported with an error.
	Tools []string

	// Timeout bounds each probe. Zero means 5 s.
	Timeout time.Duration
}

// Snapshot describes the environment the Shell's commands run in.
type Snapshot struct {
	// Shell is the name the shell runs as ("bash", "sh", "zsh").
	Shell string `json:"shell"`
	// ShellVersion is the shell's version ("5.2.15"), or empty when the
	// shell does not report one (dash) or the probe failed.
	ShellVersion string `json:"shell_version,omitempty"`
	// OS is the kernel name, "Linux" or "Darwin" (uname -s). When uname
	// cannot run, OS and Arch are the Go runtime's GOOS and GOARCH.
	OS string `json:"os"`
	// Kernel is the kernel release (uname -r), or empty.
	Kernel string `json:"kernel,omitempty"`
	// Arch is the machine ("x86_64", "aarch64"; uname -m).
	Arch string `json:"arch"`
	// Workdir is the directory commands start in.
	Workdir string `json:"workdir"`
	// Tools holds one entry per probed tool, in the order asked for.
	Tools []Tool `json:"tools"`
}

// Tool is what a tool probe found.
type Tool struct {
	// Name is the program probed (python when it stood in for python3).
	Name string `json:"name"`
	// Version is the version it printed, "2.39.5" or "v20.20.2" (node
	// prints the v), or its first line when no version number was found.
	Version string `json:"version,omitempty"`
	// Found reports that the program exists (it ran, or failed for a
	// reason other than not being found).
	Found bool `json:"found"`
	// Error says why the probe did not give an answer: it timed out,
	// exited with an error, or could not be started (too many open
	// files, a read-only workspace). Empty for a found tool with a
	// version and for a tool that is simply not installed. A tool not
	// found with an Error is "not checked" in Text.
	Error string `json:"error,omitempty"`
}

// Probe takes a snapshot of sh's environment: the shell reports $0 and
// its version variables, `uname -srm` the system, and each tool `NAME
// --version` (`go version` for go).
//
// The probes are the host's own fixed commands, not the agent's: they do
// not go through the Shell's policy or approval (no one is asked about
// `git --version`), but they run the way the agent's commands do, with
// the Shell's shell, environment and PATH, resource limits and workspace,
// inside its sandbox when it has one. At most three run at once.
//
// A probe that cannot give an answer (it timed out, failed, or could not
// be started: too few file descriptors, a read-only workspace, a closed
// Shell) is recorded in the snapshot as not checked, with the reason;
// the snapshot then holds the workspace as Workdir and the Go runtime's
// OS and architecture where uname did not answer. The error is non-nil
// only for a nil Shell or when ctx ends.
func Probe(ctx context.Context, sh *shellcap.Shell, opts Options) (*Snapshot, error) {
	if sh == nil {
		return nil, errors.New("envprobe: nil Shell")
	}
	return probe(ctx, coreStarter{core.Of(sh)}, sh.Workspace(), opts)
}

// probe takes the snapshot with st starting the commands.
func probe(ctx context.Context, st starter, workspace string, opts Options) (*Snapshot, error) {
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	tools := opts.Tools
	if tools == nil {
		tools = DefaultTools
	}
	tools = dedupe(tools)
	p := &prober{st: st, timeout: opts.Timeout, slots: make(chan struct{}, maxConcurrent)}
	snap := &Snapshot{Workdir: workspace, Tools: make([]Tool, len(tools))}

	var wg sync.WaitGroup
	wg.Go(func() { p.shell(ctx, snap) })
	wg.Go(func() { p.system(ctx, snap) })
	for i, name := range tools {
		if !ValidToolName(name) {
			snap.Tools[i] = Tool{Name: name, Error: "not a program name; not run"}
			continue
		}
		wg.Go(func() {
			t := p.tool(ctx, name)
			if name == "python3" && !t.Found && t.Error == "" && !slices.Contains(tools, "python") {
				if alt := p.tool(ctx, "python"); alt.Found {
					t = alt
				}
			}
			snap.Tools[i] = t
		})
	}
	wg.Wait()
	if snap.OS == "" {
		snap.OS, snap.Arch = runtimeOS(), runtime.GOARCH
	}
	return snap, ctx.Err()
}

type prober struct {
	st      starter
	timeout time.Duration
	slots   chan struct{} // bounds the probes running at once
}

// run runs one probe. It returns the outcome when the command ran and
// exited, else the reason for the snapshot.
func (p *prober) run(ctx context.Context, command string) (*outcome, string) {
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	case <-ctx.Done():
		return nil, "cancelled"
	}
	res, err := execute(ctx, p.st, command, p.timeout)
	switch {
	case err != nil:
		return nil, hostReason(err)
	case res.canceled:
		return nil, "cancelled"
	case res.timedOut:
		return nil, "timed out after " + p.timeout.String()
	}
	return res, ""
}

// shell learns the shell's name and version from its own variables, which
// needs no program beyond the shell's builtins.
func (p *prober) shell(ctx context.Context, snap *Snapshot) {
	res, _ := p.run(ctx, `printf '%s\n' "$0" "${BASH_VERSION:-${ZSH_VERSION:-${KSH_VERSION:-}}}"`)
	if res == nil || res.exitCode != 0 {
		return
	}
	lines := strings.Split(res.stdout, "\n")
	snap.Shell = strings.TrimPrefix(strings.TrimSpace(lines[0]), "-")
	if i := strings.LastIndexByte(snap.Shell, '/'); i >= 0 {
		snap.Shell = snap.Shell[i+1:]
	}
	if len(lines) > 1 {
		snap.ShellVersion = versionOf(lines[1])
	}
}

// system runs uname.
func (p *prober) system(ctx context.Context, snap *Snapshot) {
	res, _ := p.run(ctx, "uname -srm")
	if res == nil || res.exitCode != 0 {
		return
	}
	f := strings.Fields(res.stdout)
	if len(f) == 3 {
		snap.OS, snap.Kernel, snap.Arch = f[0], f[1], f[2]
	}
}

// tool probes one program.
func (p *prober) tool(ctx context.Context, name string) Tool {
	t := Tool{Name: name}
	command := name + " --version"
	if name == "go" {
		command = "go version"
	}
	res, reason := p.run(ctx, command)
	switch {
	case res == nil:
		t.Error = reason
	case res.exitCode == 127:
		// not found: the shell said so
	case res.exitCode == 126:
		t.Found, t.Error = true, "not executable"
	case res.exitCode != 0:
		t.Found, t.Error = true, fmt.Sprintf("%s exited with status %d", command, res.exitCode)
	default:
		t.Found = true
		out := res.stdout
		if strings.TrimSpace(out) == "" {
			out = res.stderr // python 2 prints its version there
		}
		t.Version = versionOf(firstLine(out))
	}
	return t
}

var versionRE = regexp.MustCompile(`v?[0-9]+(\.[0-9]+)+([-+~][0-9A-Za-z.]+)?`)

// versionOf finds the version number in a line such as "git version
// 2.39.5", "go version go1.26.8 linux/amd64" or "5.2.15(1)-release", or
// returns the line itself, shortened, when there is none.
func versionOf(line string) string {
	line = strings.TrimSpace(line)
	if v := versionRE.FindString(line); v != "" {
		return v
	}
	if r := []rune(line); len(r) > 60 {
		line = string(r[:60]) + "…"
	}
	return line
}

// dedupe drops repeated names, keeping the first of each.
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ValidToolName reports whether s can be probed: a plain program name
// (letters, digits, and . _ + - after the first character, at most 64
// bytes), safe to put in a command line unquoted.
func ValidToolName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '+' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// runtimeOS names GOOS the way uname -s does.
func runtimeOS() string {
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Darwin"
	case "freebsd":
		return "FreeBSD"
	}
	return runtime.GOOS
}
