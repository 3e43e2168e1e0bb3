package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// What the host obeys in a writable root is found by one walk of its
// directories: getdents without a stat per file, never following a
// symlink, with no depth or entry limit. Every directory is listed (a
// repository may be nested anywhere, node_modules/*/.git and vendor/
// included); files are only named, never opened, except the git
// configuration files the walk finds. A directory the walk cannot read is
// protected whole.

// metaKind says how a found path is protected.
type metaKind uint8

const (
	// metaFile is a file git reads or runs (a config, commondir, a .git
	// pointer, an included file, a program a config names): read-only,
	// and quarantined when it appears or changes during a command.
	metaFile metaKind = iota
	// metaDir is a directory of files git runs or reads (hooks, info, a
	// core.hooksPath): read-only; each entry is watched.
	metaDir
	// metaName is a protected name (agent and editor configuration):
	// read-only, watched as a whole.
	metaName
	// metaWhole is a directory the walk could not read: read-only as a
	// whole, since it may hold any of the above.
	metaWhole
)

// metaPath is one found path.
type metaPath struct {
	path string
	kind metaKind
}

// scanner walks writable roots for what the host obeys.
type scanner struct {
	// roots are the writable roots: a path outside them cannot be
	// written from inside, so it needs no protection.
	roots []string
	// global are the core.hooksPath values of the host's system and
	// global git configuration; relative ones apply to every repository.
	global []string
	// create makes missing hooks and info directories of found git
	// directories (when setting the sandbox up), so that they can be
	// bound read-only.
	create bool
	// home expands ~/ in configuration values ($HOME of the host).
	home string
	// units collects, for the check after a command, every path whose
	// appearance or change git would obey.
	units bool

	// notify, when not -1, is an inotify descriptor: every directory the
	// scan's result depends on is watched, before it is read, so that a
	// later change anywhere shows as an event.
	notify    int
	notifyErr error

	// prevDirs are the listings of the last scan; dirs, when not nil,
	// collects this scan's for the next.
	prevDirs map[string]*dirListing
	dirs     map[string]*dirListing

	found  []metaPath
	watch  []string
	seen   map[string]bool
	gitDir map[string]bool
	buf    []byte
}

func newScanner(roots, global []string) *scanner {
	return &scanner{roots: roots, global: global, home: os.Getenv("HOME"), notify: -1, seen: map[string]bool{}, gitDir: map[string]bool{}, buf: make([]byte, 64<<10)}
}

// scan walks root. Errors other than an unreadable directory (protected
// whole) or a directory that vanished during the walk fail the scan.
func (s *scanner) scan(root string) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if isUnreadable(err) {
			s.add(root, metaWhole)
			return nil
		}
		return fmt.Errorf("protect: open %s: %w", root, err)
	}
	defer unix.Close(fd)
	return s.dir(fd, root)
}

// listing is what one directory holds that matters.
type listing struct {
	subdirs                        []string
	names                          []string // protected names
	git                            byte     // d_type of a .git entry, 0 when none
	head, objects, refs, commondir bool
}

// list reads the directory fd without a stat per entry.
func (s *scanner) list(fd int) (*listing, error) {
	l := &listing{}
	for {
		n, err := unix.Getdents(fd, s.buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return l, nil
		}
		for b := s.buf[:n]; len(b) > 0; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if reclen == 0 || reclen > len(b) {
				return nil, errors.New("malformed directory entry")
			}
			typ := b[18]
			name := b[19:reclen]
			if i := indexNUL(name); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if err := unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
					continue // gone
				}
				typ = dtype(st.Mode)
			}
			l.note(name, typ)
		}
	}
}

func (l *listing) note(name []byte, typ byte) {
	switch string(name) {
	case ".", "..":
		return
	case ".git":
		l.git = typ
		return
	case "HEAD":
		l.head = typ == unix.DT_REG || typ == unix.DT_LNK
	case "objects":
		l.objects = typ == unix.DT_DIR
	case "refs":
		l.refs = typ == unix.DT_DIR
	case "commondir":
		l.commondir = typ == unix.DT_REG
	}
	if len(name) > 0 && isProtectedName(string(name)) {
		l.names = append(l.names, string(name))
	} else if typ == unix.DT_DIR {
		l.subdirs = append(l.subdirs, string(name))
	}
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

func dtype(mode uint32) byte {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_UNKNOWN + 100 // something else: not a directory
}

// gitInternal are the subdirectories of a git directory the walk leaves
// to gitDir: git reads nothing it obeys from them, and objects alone may
// hold thousands of directories.
var gitInternal = map[string]bool{"objects": true, "refs": true, "logs": true}

// notifyMask is what a watched directory reports: any entry made,
// removed, renamed, written or changed in mode, and the directory itself
// going away.
const notifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_MODIFY |
	unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_DONT_FOLLOW | unix.IN_ONLYDIR

// watchDir watches the directory path when the scan keeps watches.
func (s *scanner) watchDir(path string) {
	if s.notify < 0 {
		return
	}
	_, err := unix.InotifyAddWatch(s.notify, path, notifyMask)
	if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) && s.notifyErr == nil {
		s.notifyErr = fmt.Errorf("watch %s: %w", path, err)
	}
}

// dirListing is a directory's listing as of its inode and times: while
// they are the same, so are its entries (adding, removing or renaming
// one changes the directory's mtime and ctime).
type dirListing struct {
	dev, ino     uint64
	mtime, ctime unix.Timespec
	l            *listing
}

// settleTime is how long a directory must have stood unchanged before its
// listing is reused: a change in the same clock tick as the listing
// would otherwise leave its times as they were.
const settleTime = 50 * time.Millisecond

// listCached lists the directory fd at path, reusing the last scan's
// listing when the directory has not changed since (then it is still
// watched, too).
func (s *scanner) listCached(fd int, path string) (*listing, error) {
	if s.dirs == nil {
		s.watchDir(path)
		return s.list(fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if c := s.prevDirs[path]; c != nil && c.dev == st.Dev && c.ino == st.Ino && c.mtime == st.Mtim && c.ctime == st.Ctim {
		s.dirs[path] = c
		return c.l, nil
	}
	s.watchDir(path)
	now := time.Now()
	l, err := s.list(fd)
	if err != nil {
		return nil, err
	}
	newest := time.Unix(st.Mtim.Unix())
	if ct := time.Unix(st.Ctim.Unix()); ct.After(newest) {
		newest = ct
	}
	if now.Sub(newest) > settleTime {
		s.dirs[path] = &dirListing{st.Dev, st.Ino, st.Mtim, st.Ctim, l}
	}
	return l, nil
}

// dir handles the directory fd at path and walks its subdirectories.
func (s *scanner) dir(fd int, path string) error {
	l, err := s.listCached(fd, path)
	if err != nil {
		if isUnreadable(err) {
			s.add(path, metaWhole)
			return nil
		}
		return fmt.Errorf("protect: read %s: %w", path, err)
	}
	// A directory git takes for a git directory when run inside it (a
	// bare repository, a separate git directory, a worktree's).
	bare := l.head && ((l.objects && l.refs) || l.commondir)
	if bare {
		s.gitDirAt(path, path, 0)
	}
	switch l.git {
	case 0:
	case unix.DT_DIR:
		s.gitDirAt(path+"/.git", path, 0)
	case unix.DT_LNK:
		s.add(path+"/.git", metaFile)
		if t, err := filepath.EvalSymlinks(path + "/.git"); err == nil {
			s.gitDirAt(t, path, 0)
		}
	default:
		s.add(path+"/.git", metaFile)
		if t := gitdirPointer(path + "/.git"); t != "" {
			s.gitDirAt(t, path, 0)
		}
	}
	for _, n := range l.names {
		s.add(path+"/"+n, metaName)
	}
	for _, sub := range l.subdirs {
		if bare && gitInternal[sub] {
			continue
		}
		cfd, err := unix.Openat(fd, sub, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		switch {
		case err == nil:
		case isUnreadable(err):
			s.add(path+"/"+sub, metaWhole)
			continue
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENOTDIR), errors.Is(err, unix.ELOOP):
			continue // replaced or removed during the walk
		default:
			return fmt.Errorf("protect: open %s/%s: %w", path, sub, err)
		}
		err = s.dir(cfd, path+"/"+sub)
		unix.Close(cfd)
		if err != nil {
			return err
		}
	}
	return nil
}

func isUnreadable(err error) bool {
	return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)
}

// gitdirPointer returns the git directory a .git file points to, made
// absolute, or "" when it is not a pointer git would follow.
func gitdirPointer(file string) string {
	b, err := readSmall(file, 4096)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	t, ok := strings.CutPrefix(strings.TrimRight(line, "\r \t"), "gitdir: ")
	if !ok || t == "" {
		return ""
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(file), t)
	}
	return filepath.Clean(t)
}

// readSmall reads a file of at most limit bytes, without following a
// symlink at its last component.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	b := make([]byte, fi.Size()+1)
	n, err := f.Read(b)
	if err != nil && n == 0 && fi.Size() > 0 {
		return nil, err
	}
	return b[:n], nil
}

// maxGitNesting bounds how deep git directories lead to one another
// (commondir, modules, worktrees) and includes nest, as git bounds its
// includes.
const maxGitNesting = 10

// gitDirAt protects what git obeys in the git directory g, whose work
// tree (where relative hook paths start) is worktree.
func (s *scanner) gitDirAt(g, worktree string, depth int) {
	g = filepath.Clean(g)
	if s.gitDir[g] || depth > maxGitNesting {
		return
	}
	// A git directory outside the writable roots (the common directory of
	// a worktree checked out in the workspace) cannot be written, but its
	// configuration may still name hooks and programs inside them.
	s.gitDir[g] = true
	s.watchDir(g)
	fi, err := os.Lstat(g)
	if err != nil || !fi.IsDir() {
		return
	}
	if err := unix.Access(g, unix.R_OK|unix.X_OK); err != nil {
		s.add(g, metaWhole)
		return
	}
	for _, name := range []string{"config", "config.worktree"} {
		p := g + "/" + name
		s.add(p, metaFile)
		s.config(p, worktree, 0)
	}
	s.add(g+"/commondir", metaFile)
	if b, err := readSmall(g+"/commondir", 4096); err == nil {
		c := strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
		if c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(g, c)
			}
			s.gitDirAt(c, worktree, depth+1)
		}
	}
	for _, d := range []string{"hooks", "info"} {
		p := g + "/" + d
		if s.create && s.inRoots(p) {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				_ = os.Mkdir(p, 0o755)
			}
		}
		s.add(p, metaDir)
	}
	for _, hp := range s.global {
		s.hooksPath(hp, worktree)
	}
	s.subGitDirs(g+"/modules", depth)
	s.watchDir(g + "/worktrees")
	if des, err := os.ReadDir(g + "/worktrees"); err == nil {
		for _, de := range des {
			w := g + "/worktrees/" + de.Name()
			wt := ""
			if t := gitdirPointerFile(w + "/gitdir"); t != "" {
				wt = filepath.Dir(t)
			}
			s.gitDirAt(w, wt, depth+1)
		}
	} else if isUnreadable(err) {
		s.add(g+"/worktrees", metaWhole)
	}
}

// subGitDirs protects the git directories of submodules under dir, whose
// names may hold slashes (modules/a/b).
func (s *scanner) subGitDirs(dir string, depth int) {
	if depth > maxGitNesting {
		return
	}
	s.watchDir(dir)
	des, err := os.ReadDir(dir)
	if isUnreadable(err) {
		s.add(dir, metaWhole)
		return
	}
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		m := dir + "/" + de.Name()
		if _, err := os.Lstat(m + "/HEAD"); err == nil {
			s.gitDirAt(m, "", depth+1)
		} else {
			s.subGitDirs(m, depth+1)
		}
	}
}

// gitdirPointerFile reads a worktree's gitdir file: the path of the
// worktree's .git file.
func gitdirPointerFile(file string) string {
	b, err := readSmall(file, 4096)
	if err != nil {
		return ""
	}
	t := strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
	if !filepath.IsAbs(t) {
		return ""
	}
	return filepath.Clean(t)
}

// config protects what a git configuration file leads git to: the
// core.hooksPath directory, included files (every include.path and
// includeIf.*.path, whatever the condition) and programs named by path in
// variables git runs as commands. Included files are read in turn.
func (s *scanner) config(file, worktree string, depth int) {
	if depth > maxGitNesting {
		return
	}
	b, err := readSmall(file, 16<<20)
	if err != nil {
		return // absent, or unreadable to git as well; it is protected itself
	}
	vars, _ := parseGitConfig(string(b)) // git refuses a bad file: what precedes still counts
	for _, v := range vars {
		switch {
		case v.key == "core.hookspath":
			s.hooksPath(v.value, worktree)
		case v.key == "include.path" || strings.HasPrefix(v.key, "includeif.") && strings.HasSuffix(v.key, ".path"):
			inc := s.expandHome(v.value)
			if inc == "" {
				continue
			}
			if !filepath.IsAbs(inc) {
				inc = filepath.Join(filepath.Dir(file), inc)
			}
			inc = filepath.Clean(inc)
			s.add(inc, metaFile)
			s.config(inc, worktree, depth+1)
		case runsCommand(v.key):
			s.command(v.value, worktree)
		}
	}
}

// hooksPath protects the directory a core.hooksPath value names.
func (s *scanner) hooksPath(v, worktree string) {
	v = s.expandHome(v)
	if v == "" {
		return
	}
	if !filepath.IsAbs(v) {
		if worktree == "" {
			return
		}
		v = filepath.Join(worktree, v)
	}
	s.add(filepath.Clean(v), metaDir)
}

// command protects the program a command-valued variable names by path
// (./tools/fsmon.sh, bin/textconv), relative to the work tree.
func (s *scanner) command(v, worktree string) {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), "!"))
	word := v
	if i := strings.IndexAny(v, " \t"); i >= 0 {
		word = v[:i]
	}
	word = strings.Trim(word, "'\"")
	word = s.expandHome(word)
	if !strings.Contains(word, "/") {
		return
	}
	if !filepath.IsAbs(word) {
		if worktree == "" {
			return
		}
		word = filepath.Join(worktree, word)
	}
	s.add(filepath.Clean(word), metaFile)
}

// commandKeys are the variables whose value git runs as a command; a
// "*" stands for any subsection.
var commandKeys = []string{
	"core.fsmonitor", "core.sshcommand", "core.pager", "core.editor", "core.askpass",
	"core.gitproxy", "core.alternaterefscommand", "sequence.editor", "diff.external",
	"diff.*.command", "diff.*.textconv", "filter.*.clean", "filter.*.smudge", "filter.*.process",
	"merge.*.driver", "credential.helper", "credential.*.helper", "gpg.program", "gpg.*.program",
	"pager.*", "alias.*", "uploadpack.packobjectshook", "remote.*.uploadpack", "remote.*.receivepack",
	"interactive.difffilter", "difftool.*.cmd", "difftool.*.path", "mergetool.*.cmd", "mergetool.*.path",
	"man.*.cmd", "man.*.path", "browser.*.cmd", "browser.*.path", "web.browser", "sendemail.smtpserver",
	"sendemail.sendmailcmd", "gpg.ssh.defaultkeycommand",
}

// runsCommand reports whether git runs the value of key as a command.
func runsCommand(key string) bool {
	for _, k := range commandKeys {
		if k == key {
			return true
		}
		pre, post, ok := strings.Cut(k, "*")
		if !ok || !strings.HasPrefix(key, pre) || !strings.HasSuffix(key, post) {
			continue
		}
		if mid := key[len(pre) : len(key)-len(post)]; mid != "" && (post != "" || !strings.Contains(mid, ".")) {
			return true
		}
	}
	return false
}

// expandHome expands a leading ~/ the way git does for paths.
func (s *scanner) expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		h := s.home
		if h == "" {
			return ""
		}
		return filepath.Join(h, rest)
	}
	if strings.HasPrefix(p, "~") {
		return "" // ~user: another user's home, not in a writable root
	}
	return p
}

func (s *scanner) inRoots(p string) bool {
	for _, r := range s.roots {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// add records p. A symlink is recorded as itself (it is watched), and
// its target, when that lies in a writable root, is protected in its
// place (a link cannot be bound).
func (s *scanner) add(p string, kind metaKind) {
	if s.seen[p] || !s.inRoots(p) {
		return
	}
	s.seen[p] = true
	s.watchDir(filepath.Dir(p))
	fi, err := os.Lstat(p)
	if err == nil && kind == metaDir && fi.IsDir() {
		s.watchDir(p)
	}
	if s.units && kind != metaWhole && !(kind == metaName && filepath.Base(p) == stateDirName) {
		// A hooks-like directory is watched by its entries (git init's
		// samples aside); as a symlink or a file, as itself.
		if kind == metaDir && err == nil && fi.IsDir() {
			s.watchEntries(p)
		} else {
			s.watch = append(s.watch, p)
		}
	}
	if err != nil {
		return // absent: watched only
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(p)
		if err != nil || !s.inRoots(t) || s.seen[t] {
			return
		}
		s.seen[t] = true
		s.watchDir(t)
		p = t
	}
	s.found = append(s.found, metaPath{p, kind})
}

// watchEntries watches each entry of a hooks-like directory, but git's
// own samples, which git never runs.
func (s *scanner) watchEntries(dir string) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		if !(de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".sample")) {
			s.watch = append(s.watch, dir+"/"+de.Name())
		}
	}
}

// hostGitHooksPaths are the core.hooksPath values of the host's system
// and global git configuration (and the files those include), which git
// applies to every repository.
func hostGitHooksPaths() []string {
	var files []string
	if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
		files = append(files, f)
	} else {
		files = append(files, "/etc/gitconfig")
	}
	if f := os.Getenv("GIT_CONFIG_GLOBAL"); f != "" {
		files = append(files, f)
	} else {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && os.Getenv("HOME") != "" {
			xdg = filepath.Join(os.Getenv("HOME"), ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
		if h := os.Getenv("HOME"); h != "" {
			files = append(files, filepath.Join(h, ".gitconfig"))
		}
	}
	var out []string
	seen := map[string]bool{}
	home := &scanner{home: os.Getenv("HOME")}
	var read func(file string, depth int)
	read = func(file string, depth int) {
		if depth > maxGitNesting || seen[file] {
			return
		}
		seen[file] = true
		b, err := readSmall(file, 16<<20)
		if err != nil {
			return
		}
		vars, _ := parseGitConfig(string(b))
		for _, v := range vars {
			switch {
			case v.key == "core.hookspath":
				out = append(out, v.value)
			case v.key == "include.path" || strings.HasPrefix(v.key, "includeif.") && strings.HasSuffix(v.key, ".path"):
				inc := home.expandHome(v.value)
				if inc != "" && !filepath.IsAbs(inc) {
					inc = filepath.Join(filepath.Dir(file), inc)
				}
				if inc != "" {
					read(filepath.Clean(inc), depth+1)
				}
			}
		}
	}
	for _, f := range files {
		read(f, 0)
	}
	return out
}
