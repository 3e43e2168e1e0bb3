package shellcap

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap/internal/textfmt"
)

// workdir picks the directory a command starts in: the requested one, the
// remembered one (PersistCwd), or the workspace root. A vanished workspace
// is an error for the host; a bad requested directory, or a remembered one
// that vanished (then forgotten, so the next command starts in the root),
// is a *RequestError.
func (s *Shell) workdir(reqDir string) (string, error) {
	if !s.rootExists() {
		return "", &workspaceGoneError{root: s.root}
	}
	if reqDir != "" {
		return s.requestedDir(reqDir)
	}
	if !s.opts.PersistCwd {
		return s.root, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cwd == "" {
		return s.root, nil
	}
	if fi, err := os.Stat(s.cwd); err != nil || !fi.IsDir() {
		gone := s.cwd
		s.cwd = ""
		return "", workdirGone(gone, s.root, err == nil)
	}
	return s.cwd, nil
}

// workdirGone is the refusal of a command whose remembered directory
// (PersistCwd) vanished or became something else: the command did not run,
// and the next one starts in the workspace root.
func workdirGone(dir, root string, notDir bool) *RequestError {
	what := "no longer exists"
	if notDir {
		what = "is no longer a directory"
	}
	return requestErr(ErrWorkdirGone, "The working directory %s %s, so the command was not run. The next command starts in the workspace root %s: run it again (with cd first if it needs another directory).",
		textfmt.Echo(dir), what, textfmt.Echo(root))
}

func (s *Shell) requestedDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.root, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", requestErr(ErrWorkdirGone, "The directory %s does not exist.", textfmt.Echo(dir))
		}
		return "", requestErr(ErrWorkdirGone, "The directory %s cannot be used: %s.", textfmt.Echo(dir), textfmt.Echo(err.Error()))
	}
	if !within(s.root, real) {
		return "", requestErr(ErrWorkdirOutside, "The directory %s is outside the workspace %s.", textfmt.Echo(dir), textfmt.Echo(s.root))
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", requestErr(ErrWorkdirGone, "%s is not a directory.", textfmt.Echo(dir))
	}
	return real, nil
}

// within reports whether path p is root or below it. Both must be clean
// absolute paths.
func within(root, p string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// cwdFD is the descriptor on which the shell reports its final
// directory: high, so that scripts using the usual 3 to 9 do not collide
// with it.
const cwdFD = "63"

// cwdTrapFD makes a shell that gets the record pipe as its descriptor 3
// (ExtraFiles[0]) move it to cwdFD and write its physical working
// directory there when it exits, out of band: the command's output can
// never be mistaken for it.
const cwdTrapFD = "exec " + cwdFD + ">&3 3>&-; trap '{ builtin pwd -P >&" + cwdFD + "; } 2>/dev/null' EXIT; "

// maxCwdRecord bounds what is read from the record pipe; a longer record
// is not a directory.
const maxCwdRecord = 8192

// cwdRecord is the pipe on which a shell reports its final directory. A
// pipe, not a file: nothing the command can reach through descriptor 63
// (it inherits it, confined or not) is a host file it could grow or point
// elsewhere. The host drains it while the command runs, keeping at most
// maxCwdRecord+1 bytes, so a command that writes into it never blocks its
// shell's exit.
type cwdRecord struct {
	r, w *os.File
	data []byte // the first bytes read, at most maxCwdRecord+1
	done chan struct{}
}

func newCwdRecord() (*cwdRecord, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &cwdRecord{r: r, w: w, done: make(chan struct{})}
	go c.drain()
	return c, nil
}

func (c *cwdRecord) drain() {
	defer close(c.done)
	buf := make([]byte, 4096)
	for {
		n, err := c.r.Read(buf)
		if keep := min(n, maxCwdRecord+1-len(c.data)); keep > 0 {
			c.data = append(c.data, buf[:keep]...)
		}
		if err != nil {
			return
		}
	}
}

// read returns what the shell wrote, once it has exited (the EXIT trap
// has written the record by then), without waiting for processes it left
// holding the pipe; "" when the record is missing or too long.
func (c *cwdRecord) read() string {
	_ = c.r.SetReadDeadline(time.Now())
	<-c.done
	_ = c.r.SetReadDeadline(time.Time{})
	if rest := maxCwdRecord + 1 - len(c.data); rest > 0 {
		c.data = append(c.data, readAvailable(c.r, rest)...)
	}
	if len(c.data) > maxCwdRecord {
		return ""
	}
	return string(c.data)
}

// close closes both ends and stops the drain.
func (c *cwdRecord) close() {
	_ = c.w.Close()
	_ = c.r.Close()
	<-c.done
}

// updateCwd adopts the directory the command ended in, only after a clean
// exit, and only if it is a directory inside the workspace.
func (s *Shell) updateCwd(res *Result, record string) {
	if res.ExitCode != 0 || res.TimedOut || res.Canceled {
		return
	}
	p := strings.TrimSuffix(record, "\n")
	if p == "" || !utf8.ValidString(p) || !filepath.IsAbs(p) || strings.ContainsAny(p, "\n\x00") {
		return
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !within(s.root, real) {
		return
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return
	}
	s.mu.Lock()
	s.cwd = real
	if real == s.root {
		s.cwd = ""
	}
	s.mu.Unlock()
	res.Cwd = real
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

type workspaceGoneError struct{ root string }

func (e *workspaceGoneError) Error() string {
	return "shellcap: the workspace " + e.root + " no longer exists or is not a directory"
}

func (e *workspaceGoneError) Unwrap() error { return ErrWorkspaceGone }
