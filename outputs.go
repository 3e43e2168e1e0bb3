package shellcap

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"strings"
	"time"

	"github.com/shellcap/shellcap/internal/capture"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/internal/safefs"
	"github.com/shellcap/shellcap/internal/textfmt"
)

// stateDirName is the git-ignored directory shellcap keeps in a workspace.
// Every access to it goes through internal/safefs: a confined command may
// have planted symlinks there, and the host never follows one.
const stateDirName = safefs.StateDirName

// outputSubdir holds kept outputs, beneath the state directory.
const outputSubdir = "output"

// maxSpillBytes bounds a kept output file when MaxOutputBytes is unlimited.
const maxSpillBytes = 1 << 30

// streamCapture is one output stream of one command: the bounded in-memory
// copy and, once that overflows, the complete copy on disk.
type streamCapture struct {
	shell    *Shell
	stream   Stream
	buf      *capture.Buffer
	budget   core.Budget // Options.StdoutBudget or StderrBudget
	path     string      // the kept output file, once created
	rel      string      // its name beneath the state directory
	complete bool        // the file holds every byte
}

func (s *Shell) newCapture(stream Stream) *streamCapture {
	c := &streamCapture{shell: s, stream: stream, budget: s.budget(stream)}
	head, tail := c.budget.KeepBytes(s.opts.MaxOutputChars, s.opts.MaxOutputBytes)
	var spill capture.SpillFunc
	if !s.opts.DisableOutputFiles {
		spill = c.openSpill
	}
	c.buf = capture.New(head, tail, spill)
	return c
}

// budget is the Options budget of stream.
func (s *Shell) budget(stream Stream) core.Budget {
	b := s.opts.StdoutBudget
	if stream == Stderr {
		b = s.opts.StderrBudget
	}
	return core.Budget(b)
}

// openSpill creates the file for the complete stream; capture calls it the
// first time it has to drop bytes.
func (c *streamCapture) openSpill() (io.WriteCloser, int64, error) {
	f, rel, path, err := c.shell.createOutputFile(c.stream)
	if err != nil {
		c.shell.log.Warn("shellcap: cannot keep complete output", "err", err)
		return nil, 0, err
	}
	c.path, c.rel = path, rel
	budget := c.shell.opts.MaxOutputBytes
	if budget <= 0 {
		budget = maxSpillBytes
	}
	return f, budget, nil
}

// finish copies the captured stream into the result.
func (c *streamCapture) finish(res *Result, keepANSI bool) {
	_ = c.buf.Close()
	kept, omitted := c.buf.Bytes(), c.buf.Omitted()
	if !c.budget.IsZero() {
		kept, omitted = c.buf.BytesWithin(c.budget.Head, c.budget.Tail)
	}
	text := string(kept)
	if !keepANSI {
		text = textfmt.StripANSI(text)
	}
	total := c.buf.Total()
	complete, ok := c.buf.Spilled()
	if !ok {
		c.path = ""
	}
	c.complete = complete
	switch c.stream {
	case Stdout:
		res.Stdout, res.StdoutBytes, res.StdoutOmitted = text, total, omitted
	case Stderr:
		res.Stderr, res.StderrBytes, res.StderrOmitted = text, total, omitted
	}
	if omitted > 0 {
		res.Truncated = true
	}
}

// discard removes a kept file for a command that never started.
func (c *streamCapture) discard() {
	_ = c.buf.Close()
	if c.rel != "" {
		c.shell.removeStateFile(c.rel)
	}
}

// keepOutputs makes sure that, when the model does not see everything, the
// complete output is in a file it can search, and tells it where.
func (s *Shell) keepOutputs(res *Result, stdout, stderr *streamCapture) {
	if res.OutputLimitExceeded {
		res.Truncated = true
	}
	if res.textTruncated() {
		res.Truncated = true
	}
	if !res.Truncated || s.opts.DisableOutputFiles {
		return
	}
	var kept, lost []string
	for _, c := range []*streamCapture{stdout, stderr} {
		err := c.buf.SpillErr()
		if c.path == "" && c.buf.Total() > 0 && c.buf.Omitted() == 0 {
			// Everything is still in memory: write it out now.
			err = c.writeAll()
		}
		if c.path == "" {
			if err != nil {
				s.log.Warn("shellcap: cannot keep complete output", "err", err)
				lost = append(lost, c.stream.String()+" ("+err.Error()+")")
			}
			continue
		}
		switch c.stream {
		case Stdout:
			res.StdoutFile = c.path
		case Stderr:
			res.StderrFile = c.path
		}
		what := "full " + c.stream.String()
		switch {
		case err != nil:
			what = "partial " + c.stream.String() + " (keeping the copy failed: " + err.Error() + ")"
		case !c.complete && c.buf.Omitted() > 0:
			what = "first " + textfmt.FormatBytes(s.spillBudget()) + " of " + c.stream.String()
		}
		kept = append(kept, what+": "+c.path)
	}
	if len(kept) > 0 {
		res.Notes = append(res.Notes, keptNotePrefix+strings.Join(kept, "; ")+keptNoteHint)
	}
	if len(lost) > 0 {
		res.Notes = append(res.Notes, "Output truncated, and the complete output could not be kept: "+strings.Join(lost, "; ")+". Redirect it to a file yourself, e.g. cmd > out.txt 2>&1, then read parts of it.")
	}
}

func (s *Shell) spillBudget() int64 {
	if s.opts.MaxOutputBytes > 0 {
		return s.opts.MaxOutputBytes
	}
	return maxSpillBytes
}

func (c *streamCapture) writeAll() error {
	f, rel, path, err := c.shell.createOutputFile(c.stream)
	if err != nil {
		return err
	}
	_, err = f.Write(c.buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		c.shell.removeStateFile(rel)
		return err
	}
	c.path, c.rel, c.complete = path, rel, true
	return nil
}

// createOutputFile creates a fresh kept-output file, returning it, its
// name beneath the state directory and its path.
func (s *Shell) createOutputFile(stream Stream) (*os.File, string, string, error) {
	dir, err := s.stateSubdir(outputSubdir)
	if err != nil {
		return nil, "", "", err
	}
	defer dir.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:]) + "." + stream.String()
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", "", err
	}
	return f, outputSubdir + "/" + name, dir.Join(name), nil
}

// stateSubdir creates (0700) and opens <workspace>/.shellcap/<name>, the
// state directory getting its .gitignore, without following a symlink.
func (s *Shell) stateSubdir(name string) (*safefs.Dir, error) {
	st, err := safefs.OpenState(s.root, true)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.MkdirAll(name, 0o700)
}

// removeStateFile removes rel beneath the state directory, best effort.
func (s *Shell) removeStateFile(rel string) {
	st, err := safefs.OpenState(s.root, false)
	if err != nil {
		return
	}
	defer st.Close()
	_ = st.Remove(rel)
}

// removeExpiredOutputs deletes kept output files older than retention.
func removeExpiredOutputs(root string, retention time.Duration) {
	st, err := safefs.OpenState(root, false)
	if err != nil {
		return
	}
	defer st.Close()
	dir, err := st.OpenDir(outputSubdir)
	if err != nil {
		return
	}
	defer dir.Close()
	names, err := dir.ReadDirNames()
	if err != nil {
		return
	}
	cutoff := time.Now().Add(-retention)
	for _, n := range names {
		if info, err := dir.Lstat(n); err == nil && info.Mode().IsRegular() && info.ModTime().Before(cutoff) {
			_ = dir.Remove(n)
		}
	}
}
