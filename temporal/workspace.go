package temporal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/jobs"
	"github.com/shellcap/shellcap/toolset"
)

// workspace is what a worker keeps for one workspace it serves: its Shell,
// its jobs.Manager and its toolset, built on first use.
type workspace struct {
	path string

	mu     sync.Mutex
	shell  *shellcap.Shell
	jobs   *jobs.Manager
	tools  *toolset.Toolset
	closed bool
	// foreground is the toolset's ForegroundTimeout: run_command promotes
	// a command still running after it (zero: never). Set by get.
	foreground time.Duration
}

// workspaces is the set of workspaces a worker serves.
type workspaces struct {
	opts   *WorkerOptions
	byPath map[string]*workspace
}

func newWorkspaces(opts *WorkerOptions) (*workspaces, error) {
	ws := &workspaces{opts: opts, byPath: make(map[string]*workspace, len(opts.Workspaces))}
	for _, p := range opts.Workspaces {
		if p == "" || !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return nil, fmt.Errorf("temporal: workspace %q: a served workspace must be an absolute, clean path", p)
		}
		if _, dup := ws.byPath[p]; dup {
			return nil, fmt.Errorf("temporal: workspace %q is listed twice", p)
		}
		ws.byPath[p] = &workspace{path: p}
	}
	return ws, nil
}

// lookup returns the served workspace ref names, or a refusal naming it.
func (s *workspaces) lookup(ref WorkspaceRef) (*workspace, error) {
	if err := ref.Validate(); err != nil {
		return nil, refuseKind(KindUnknownWorkspace, "ErrUnknownWorkspace", err.Error())
	}
	w, ok := s.byPath[ref.Path]
	if !ok || ref.Host != s.opts.Host {
		return nil, refuseKind(KindUnknownWorkspace, "ErrUnknownWorkspace",
			fmt.Sprintf("The workspace %s is not served by the worker of host %s that took the call (when several workers poll %s, each must serve all of the host's workspaces).",
				ref, s.opts.Host, TaskQueue(s.opts.Host)))
	}
	return w, nil
}

// get builds the workspace's Shell, jobs.Manager and toolset on first use.
// A failure is an infrastructure error (retryable): the next call tries
// again.
func (w *workspace) get(opts *WorkerOptions) (*shellcap.Shell, *jobs.Manager, *toolset.Toolset, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, nil, nil, errWorkerStopping
	}
	if w.tools != nil {
		return w.shell, w.jobs, w.tools, nil
	}
	set, err := w.open(opts)
	if err != nil {
		return nil, nil, nil, err
	}
	sh := set.Shell
	m, err := jobs.New(sh, set.Jobs)
	if err != nil {
		sh.Close()
		return nil, nil, nil, fmt.Errorf("temporal: the job manager for workspace %s: %w", w.path, err)
	}
	if set.ForegroundTimeout < 0 {
		m.Close()
		sh.Close()
		return nil, nil, nil, fmt.Errorf("temporal: workspace %s: negative ForegroundTimeout %v", w.path, set.ForegroundTimeout)
	}
	ts, err := toolset.New(toolset.Options{Shell: sh, Jobs: m, Session: set.Session, ForegroundTimeout: set.ForegroundTimeout})
	if err != nil {
		m.Close()
		sh.Close()
		return nil, nil, nil, fmt.Errorf("temporal: the toolset for workspace %s: %w", w.path, err)
	}
	w.shell, w.jobs, w.tools, w.foreground = sh, m, ts, set.ForegroundTimeout
	return sh, m, ts, nil
}

// open builds the workspace's Shell and the options of its tools: by
// OpenWorkspace when set, else from Shell (or the defaults), Jobs and
// Session.
func (w *workspace) open(opts *WorkerOptions) (WorkspaceSetup, error) {
	if opts.OpenWorkspace != nil {
		set, err := opts.OpenWorkspace(w.path)
		switch {
		case err != nil:
			return set, fmt.Errorf("temporal: the Shell for workspace %s: %w", w.path, err)
		case set.Shell == nil:
			return set, fmt.Errorf("temporal: OpenWorkspace returned no Shell for workspace %s", w.path)
		case !sameDir(set.Shell.Workspace(), w.path):
			set.Shell.Close()
			return set, fmt.Errorf("temporal: OpenWorkspace returned a Shell for %s, not for workspace %s", set.Shell.Workspace(), w.path)
		}
		return set, nil
	}
	so := defaultShellOptions()
	if opts.Shell != nil {
		so = opts.Shell(w.path)
	}
	so.Workspace = w.path
	sh, err := shellcap.New(so)
	if err != nil {
		return WorkspaceSetup{}, fmt.Errorf("temporal: the Shell for workspace %s: %w", w.path, err)
	}
	return WorkspaceSetup{Shell: sh, Jobs: opts.Jobs, Session: opts.Session, ForegroundTimeout: opts.ForegroundTimeout}, nil
}

// close closes what get built; later calls fail as the worker stopping.
func (w *workspace) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	w.closed = true
	if w.tools != nil {
		w.tools.Close()
		w.jobs.Close()
		w.shell.Close()
	}
}

func (s *workspaces) close() {
	for _, w := range s.byPath {
		w.close()
	}
}

// sameDir reports whether a and b name the same directory (a Shell
// resolves its workspace's symbolic links).
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// promotes is the toolset's ForegroundTimeout, once get built it.
func (w *workspace) promotes() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.foreground
}
