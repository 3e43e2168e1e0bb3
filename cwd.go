package shellcap

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// workdir picks the directory a command starts in: the requested one, the
// remembered one (PersistCwd), or the workspace root. A vanished workspace
// is an error for the host; a bad requested directory is a *RequestError.
func (s *Shell) workdir(reqDir string, res *Result) (string, error) {
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
		res.Notes = append(res.Notes, "The previous directory "+s.cwd+" was removed; now in the workspace root "+s.root+".")
		s.cwd = ""
		return s.root, nil
	}
	return s.cwd, nil
}

func (s *Shell) requestedDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(s.root, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", requestErr(ErrWorkdirGone, "The directory %s does not exist.", dir)
		}
		return "", requestErr(ErrWorkdirGone, "The directory %s cannot be used: %v.", dir, err)
	}
	if !within(s.root, real) {
		return "", requestErr(ErrWorkdirOutside, "The directory %s is outside the workspace %s.", dir, s.root)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", requestErr(ErrWorkdirGone, "%s is not a directory.", dir)
	}
	return real, nil
}

// within reports whether path p is root or below it. Both must be clean
// absolute paths.
func within(root, p string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}

// cwdCaptureFile returns a fresh path where the shell records its final
// directory.
func (s *Shell) cwdCaptureFile() (string, error) {
	dir, err := s.stateSubdir("run")
	if err != nil {
		return "", err
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(dir, "cwd-"+hex.EncodeToString(b[:])), nil
}

// cwdTrap makes the shell write its physical working directory to file when
// it exits, out of band: the command's output can never be mistaken for it.
func cwdTrap(file string) string {
	action := "{ builtin pwd -P >| " + shellQuote(file) + "; } 2>/dev/null"
	return "trap " + shellQuote(action) + " EXIT; "
}

// cwdFD is the descriptor on which a sandboxed shell reports its final
// directory: high, so that scripts using the usual 3 to 9 do not collide
// with it.
const cwdFD = "63"

// cwdTrapFD is cwdTrap for a shell that gets the record file as its
// descriptor 3 (ExtraFiles[0]): it moves it to cwdFD first.
const cwdTrapFD = "exec " + cwdFD + ">&3 3>&-; trap '{ builtin pwd -P >&" + cwdFD + "; } 2>/dev/null' EXIT; "

// updateCwd adopts the directory the command ended in, only after a clean
// exit, and only if it is a directory inside the workspace.
func (s *Shell) updateCwd(res *Result, file string) {
	if res.ExitCode != 0 || res.TimedOut || res.Canceled {
		return
	}
	f, err := os.Open(file)
	if err != nil {
		return
	}
	data, err := io.ReadAll(io.LimitReader(f, 8192))
	f.Close()
	if err != nil {
		return
	}
	p := strings.TrimSuffix(string(data), "\n")
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
