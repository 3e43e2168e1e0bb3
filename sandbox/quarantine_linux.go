package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The kernel cannot forbid one name inside a directory that stays
// writable (.git must, for index.lock, ORIG_HEAD and the objects), so what
// git would obey once created there (commondir, config.worktree, a hook,
// the config of a repository the command makes itself) cannot be a
// read-only mount before it exists. A guard closes that gap on the host:
// after each command it finds every such name that appeared or changed
// since it last trusted the workspace, moves it into the workspace's
// .shellcap/quarantine (which the sandbox hides), and names it.

// quarantineDir is the quarantine inside the state directory.
const quarantineDir = "quarantine"

// fileID is what identifies a version of a file: a change of content,
// mode or owner, a replacement or a rename changes it.
type fileID struct {
	dev, ino     uint64
	mode         uint32
	size         int64
	mtime, ctime unix.Timespec
}

func idOf(path string) (fileID, bool) {
	id, err := statID(path)
	return id, err == nil
}

func statID(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileID{}, err
	}
	return fileID{st.Dev, st.Ino, st.Mode, st.Size, st.Mtim, st.Ctim}, nil
}

// guard watches one workspace for what git and agents obey.
type guard struct {
	mu      sync.Mutex
	ws      string
	roots   []string
	global  []string
	trusted map[string]fileID // watched paths as last trusted; absent ones are not kept
	sent    map[string]uint64 // protected paths handed to the launcher, by inode
	pending []string          // quarantined before a command, reported after it
	// tainted: a command started since the last check after one, so
	// what changed since cannot be taken for the host's.
	tainted bool
	// lastAfter is when the last check after a command ran (monotonic).
	lastAfter int64

	// notify is an inotify descriptor watching every directory the last
	// full scan depended on (-1 without): no event since, and the
	// workspace holds nothing new, so a check costs one read. dirty
	// forces the next check to scan in full.
	notify int
	dirty  bool
	buf    []byte
	// dirs are the directory listings of the last full scan, reused
	// where a directory has not changed.
	dirs map[string]*dirListing
	// create and initial: see newGuardScan.
	create  bool
	initial []metaPath
}

// takeInitial returns what the first scan found, to protect before any
// command, and counts it as handed to the launcher.
func (g *guard) takeInitial() []metaPath {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []metaPath
	for _, f := range g.initial {
		var st unix.Stat_t
		if unix.Lstat(f.path, &st) == nil {
			g.sent[f.path] = st.Ino
			out = append(out, f)
		}
	}
	g.initial = nil
	return out
}

// newGuard trusts the workspace as it is now: what exists when the
// sandbox is first set up is the host's. With watch, the guard keeps
// inotify watches, for a launcher's many checks; without, every check
// scans in full.
func newGuard(ws string, roots []string, watch bool) (*guard, error) {
	return newGuardScan(ws, roots, watch, false)
}

// newGuardScan is newGuard whose first scan, with create, also makes the
// missing hooks and info directories of the git directories it finds and
// keeps what it found, for a launcher whose helper does not scan itself
// (takeInitial).
func newGuardScan(ws string, roots []string, watch, create bool) (*guard, error) {
	g := &guard{ws: ws, roots: roots, trusted: map[string]fileID{}, sent: map[string]uint64{}, notify: -1, lastAfter: monotonic()}
	if watch {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err == nil {
			g.notify = fd
		}
	}
	g.create = create
	s, err := g.scan()
	g.create = false
	if err != nil {
		g.close()
		return nil, err
	}
	if create {
		g.initial = s.found
	}
	for _, p := range s.watch {
		if id, ok := idOf(p); ok {
			g.trusted[p] = id
		}
	}
	return g, nil
}

func (g *guard) scan() (*scanner, error) {
	g.global = hostGitHooksPaths()
	s := newScanner(g.roots, g.global)
	s.units = true
	s.create = g.create
	s.notify = g.notify
	s.prevDirs, s.dirs = g.dirs, map[string]*dirListing{}
	for _, r := range g.roots {
		if err := s.scan(r); err != nil {
			return nil, err
		}
	}
	g.dirs = s.dirs
	// A watch that could not be placed (the user's inotify limit): every
	// check scans in full from now on.
	g.dirty = s.notifyErr != nil || g.notify < 0
	return s, nil
}

// quiet reports that nothing the last full scan depended on has changed
// since: no event is queued. It drains the queue.
func (g *guard) quiet() bool {
	if g.dirty || g.notify < 0 {
		g.drain()
		return false
	}
	return !g.drain()
}

// drain reads every queued event and reports whether there was any (an
// error counts as one).
func (g *guard) drain() bool {
	if g.notify < 0 {
		return true
	}
	if g.buf == nil {
		g.buf = make([]byte, 16<<10)
	}
	any := false
	for {
		n, err := unix.Read(g.notify, g.buf)
		if n > 0 {
			any = true
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if errors.Is(err, unix.EAGAIN) {
			return any
		}
		return true
	}
}

// close releases the watches.
func (g *guard) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.notify >= 0 {
		unix.Close(g.notify)
		g.notify = -1
	}
}

func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// changed lists the watched paths that are new or differ from their
// trusted version, sorted.
func (g *guard) changed(s *scanner) []string {
	var out []string
	for _, p := range s.watch {
		id, err := statID(p)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
			delete(g.trusted, p)
			continue
		}
		if err != nil {
			// Unreadable (a directory above made inaccessible): kept as
			// last trusted; the sandbox protects it whole meanwhile.
			continue
		}
		t, known := g.trusted[p]
		if known && t.dev == id.dev && t.ino == id.ino && (t == id || id.mode&unix.S_IFMT == unix.S_IFDIR || g.sent[p] == id.ino) {
			// The same file or directory, read-only in the sandbox
			// since the last check: what changed in it, the host did.
			g.trusted[p] = id
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// before runs before a command starts. What changed since the last check
// is trusted as the host's when no sandboxed process is alive (busy says
// whether one may be; an error counts as yes), and quarantined otherwise,
// to be reported after the command. It returns what the sandbox must
// newly protect: every protected path the launcher does not yet hold with
// the same inode.
func (g *guard) before(busy func(since int64) (bool, error)) ([]metaPath, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	defer func() { g.tainted = true }() // the command about to start
	if g.quiet() {
		return nil, nil
	}
	s, err := g.scan()
	if err != nil {
		return nil, err
	}
	if ch := g.changed(s); len(ch) > 0 {
		alive, err := false, error(nil)
		if !g.tainted {
			alive, err = busy(g.lastAfter)
		}
		if g.tainted || alive || err != nil {
			moved, err := g.quarantine(ch)
			g.pending = append(g.pending, moved...)
			if err != nil {
				return nil, err
			}
		} else {
			g.trust(ch)
		}
	}
	var out []metaPath
	for _, f := range s.found {
		var st unix.Stat_t
		if unix.Lstat(f.path, &st) != nil {
			continue
		}
		if ino, ok := g.sent[f.path]; ok && ino == st.Ino {
			continue
		}
		g.sent[f.path] = st.Ino
		out = append(out, f)
	}
	return out, nil
}

// after runs when a command (or a session step, or a job) has ended: what
// changed since the last check is quarantined. It returns the quarantined
// paths, relative to the workspace where they lay in it, with those
// quarantined before the command.
func (g *guard) after() ([]string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	// From now on, a process of the sandbox that ends may have written
	// after this check looked.
	start := monotonic()
	defer func() { g.tainted, g.lastAfter = false, start }()
	if g.quiet() {
		return g.takePending(), nil
	}
	s, err := g.scan()
	if err != nil {
		return g.takePending(), err
	}
	moved, err := g.quarantine(g.changed(s))
	out := append(g.takePending(), moved...)
	return out, err
}

func (g *guard) takePending() []string {
	p := g.pending
	g.pending = nil
	return p
}

// resent forgets what was handed to a launcher that has been rebuilt.
func (g *guard) resent() {
	g.mu.Lock()
	g.sent = map[string]uint64{}
	g.dirty = true
	g.mu.Unlock()
}

func (g *guard) trust(paths []string) {
	for _, p := range paths {
		if id, ok := idOf(p); ok {
			g.trusted[p] = id
		}
	}
}

// quarantine moves paths (deepest first, so that a directory's watched
// entries go before it) into a fresh directory of the quarantine, keeping
// their place relative to the workspace. A path outside the workspace, or
// on another filesystem, is renamed in place to a name neither git nor an
// agent reads. It returns the quarantined paths, relative to the
// workspace where they lay in it.
func (g *guard) quarantine(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	var dst int = -1
	defer func() {
		if dst >= 0 {
			unix.Close(dst)
		}
	}()
	var moved []string
	var errs []error
	for _, p := range paths {
		if _, ok := idOf(p); !ok {
			continue // went with a directory quarantined before it
		}
		rel, err := filepath.Rel(g.ws, p)
		inWS := err == nil && rel != "." && !strings.HasPrefix(rel, "../") && rel != ".."
		if inWS && dst < 0 {
			if dst, err = openQuarantine(g.ws, stamp); err != nil {
				errs = append(errs, err)
				inWS = false
			}
		}
		err = errors.New("outside the workspace")
		if inWS {
			err = moveInto(g.ws, rel, dst)
		}
		if err != nil {
			// Out of git's reach in place.
			if err2 := renameBeneath(filepath.Dir(p), filepath.Base(p), filepath.Base(p)+".shellcap-quarantined-"+stamp); err2 != nil {
				errs = append(errs, fmt.Errorf("quarantine %s: %w (in place: %w)", p, err, err2))
				continue
			}
		}
		delete(g.trusted, p)
		if inWS {
			moved = append(moved, rel)
		} else {
			moved = append(moved, p)
		}
	}
	sort.Strings(moved)
	return moved, errors.Join(errs...)
}

// openQuarantine opens (making it) .shellcap/quarantine/stamp under ws,
// refusing a symlink at every step.
func openQuarantine(ws, stamp string) (int, error) {
	fd, err := openDirNoFollow(ws)
	if err != nil {
		return -1, err
	}
	for _, name := range []string{stateDirName, quarantineDir, stamp} {
		next, err := openOrMakeDir(fd, name)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("quarantine: %s: %w", name, err)
		}
		fd = next
	}
	return fd, nil
}

func openDirNoFollow(path string) (int, error) {
	return unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

func openOrMakeDir(dirfd int, name string) (int, error) {
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS}
	fd, err := unix.Openat2(dirfd, name, how)
	if errors.Is(err, unix.ENOENT) {
		if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, err = unix.Openat2(dirfd, name, how)
	}
	return fd, err
}

// moveInto renames ws/rel to rel under the directory dst, without
// following a symlink anywhere in ws/rel.
func moveInto(ws, rel string, dst int) error {
	wsfd, err := openDirNoFollow(ws)
	if err != nil {
		return err
	}
	defer unix.Close(wsfd)
	src := wsfd
	if d := filepath.Dir(rel); d != "." {
		if src, err = unix.Openat2(wsfd, d, &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS,
		}); err != nil {
			return err
		}
		defer unix.Close(src)
	}
	to := dst
	parts := strings.Split(filepath.Dir(rel), "/")
	for i, name := range parts {
		if name == "." {
			break
		}
		next, err := openOrMakeDir(to, name)
		if i > 0 {
			unix.Close(to)
		}
		if err != nil {
			return err
		}
		to = next
	}
	if to != dst {
		defer unix.Close(to)
	}
	return unix.Renameat2(src, filepath.Base(rel), to, filepath.Base(rel), unix.RENAME_NOREPLACE)
}

// renameBeneath renames dir/from to dir/to without following a symlink
// in dir.
func renameBeneath(dir, from, to string) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Renameat2(fd, from, fd, to, unix.RENAME_NOREPLACE)
}

// Guard checks a workspace after commands that Wrap sandboxes, as a
// Launcher does after each of its commands (see Launcher.AfterCommand).
// Make it before the command starts: what exists then is trusted as the
// host's.
type Guard struct{ g *guard }

// NewGuard returns a Guard for cfg's workspace and writable roots, or nil
// (whose AfterCommand does nothing) when cfg's profile writes nothing
// that needs it.
func NewGuard(cfg Config) (*Guard, error) {
	prof, err := cfg.profile()
	if err != nil || prof != WorkspaceWrite {
		return nil, err
	}
	ws, err := existingAbs(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	extra, err := existingAll(cfg.ExtraWritable)
	if err != nil {
		return nil, fmt.Errorf("sandbox: extra writable root: %w", err)
	}
	g, err := newGuard(ws, dedupe(append([]string{ws}, extra...), nil), false)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &Guard{g}, nil
}

// AfterCommand quarantines what git or an agent would obey that appeared
// or changed in the workspace since the Guard was made or last checked,
// and returns it (see Launcher.AfterCommand).
func (g *Guard) AfterCommand() ([]string, error) {
	if g == nil {
		return nil, nil
	}
	return g.g.after()
}
