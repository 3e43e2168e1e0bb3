package jobs

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shellcap/shellcap/internal/safefs"
)

// A job's files live in <workspace>/.shellcap/jobs/<id>, where a confined
// command may have planted symlinks or whole records (an older sandbox
// that started before .shellcap existed, a degraded one without private
// mounts). The host therefore reaches them only through internal/safefs
// (no symlink is ever followed, every file is a regular file, FIFO or
// directory of the current user, with one link), and it trusts a status
// file only when it carries the MAC the store computes with a key kept
// outside the workspace: a record the store did not write is not a job.

const (
	jobsSubdir  = "jobs"
	keyFileName = "job-records.key"
	keyLen      = 32
	// maxStatusBytes bounds a status file.
	maxStatusBytes = 1 << 20
	// macPrefix starts the MAC field appended to a status file's JSON.
	macPrefix = `,"mac":"`
	macSuffix = "\"}\n"
	macHexLen = 2 * sha256.Size
)

// errNotJobDir reports a path that does not have the shape of a job
// directory.
var errNotJobDir = errors.New("jobs: not a job directory")

// errForged reports a status file without a valid MAC.
var errForged = errors.New("jobs: the status file was not written by the job store")

// openState opens <workspace>/.shellcap; create makes it (and its
// .gitignore) when missing.
func openState(workspace string, create bool) (*safefs.Dir, error) {
	return safefs.OpenState(workspace, create)
}

// openJobsRoot opens <workspace>/.shellcap/jobs, creating it with create.
func openJobsRoot(workspace string, create bool) (*safefs.Dir, error) {
	st, err := openState(workspace, create)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if create {
		return st.MkdirAll(jobsSubdir, 0o700)
	}
	return st.OpenDir(jobsSubdir)
}

// splitJobDir checks that dir is <workspace>/.shellcap/jobs/<id> and
// returns the workspace and the ID.
func splitJobDir(dir string) (workspace, id string, err error) {
	id = filepath.Base(dir)
	jobsDir := filepath.Dir(dir)
	state := filepath.Dir(jobsDir)
	if !validID(id) || filepath.Base(jobsDir) != jobsSubdir || filepath.Base(state) != safefs.StateDirName {
		return "", "", fmt.Errorf("%w: %s", errNotJobDir, dir)
	}
	return filepath.Dir(state), id, nil
}

// openJobDir opens the job directory dir without following a symlink.
func openJobDir(dir string) (*safefs.Dir, error) {
	ws, id, err := splitJobDir(dir)
	if err != nil {
		return nil, err
	}
	st, err := openState(ws, false)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.OpenDir(jobsSubdir + "/" + id)
}

// openJobFile opens the file path, <job dir>/<name>, of a job: a regular
// file of the current user with one link, never through a symlink.
func openJobFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	d, err := openJobDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.OpenFile(filepath.Base(path), flag, perm)
}

// readJobFile reads the job file path, refusing one over limit bytes.
func readJobFile(path string, limit int64) ([]byte, error) {
	d, err := openJobDir(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadFile(filepath.Base(path), limit)
}

// removeJobFile removes name from the job directory dir, best effort.
func removeJobFile(dir, name string) {
	if d, err := openJobDir(dir); err == nil {
		_ = d.Remove(name)
		d.Close()
	}
}

// removeJobDir removes a job directory and everything in it, never
// following a symlink.
func removeJobDir(dir string) error {
	ws, id, err := splitJobDir(dir)
	if err != nil {
		return err
	}
	root, err := openJobsRoot(ws, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	defer root.Close()
	return root.RemoveAll(id)
}

// recordKey is the secret that signs a workspace's status files.
type recordKey []byte

// sign returns the status file for body, the status's JSON object: body
// with a "mac" member binding it to the job directory dir.
func (k recordKey) sign(dir string, body []byte) []byte {
	mac := k.mac(dir, body)
	out := make([]byte, 0, len(body)+len(macPrefix)+macHexLen+len(macSuffix))
	out = append(out, body[:len(body)-1]...)
	out = append(out, macPrefix...)
	out = append(out, hex.EncodeToString(mac)...)
	return append(out, macSuffix...)
}

// verify checks a status file read from dir and returns its JSON without
// the MAC.
func (k recordKey) verify(dir string, data []byte) ([]byte, error) {
	n := len(macPrefix) + macHexLen + len(macSuffix)
	if len(k) != keyLen || len(data) <= n || !strings.HasSuffix(string(data), macSuffix) ||
		string(data[len(data)-n:len(data)-n+len(macPrefix)]) != macPrefix {
		return nil, errForged
	}
	got, err := hex.DecodeString(string(data[len(data)-n+len(macPrefix) : len(data)-len(macSuffix)]))
	if err != nil {
		return nil, errForged
	}
	body := append(append([]byte{}, data[:len(data)-n]...), '}')
	if !hmac.Equal(got, k.mac(dir, body)) {
		return nil, errForged
	}
	return body, nil
}

func (k recordKey) mac(dir string, body []byte) []byte {
	h := hmac.New(sha256.New, k)
	h.Write([]byte("shellcap job record v1\x00"))
	h.Write([]byte(dir))
	h.Write([]byte{0})
	h.Write(body)
	return h.Sum(nil)
}

// keyDir is where the record key lives: dir when set, else
// $XDG_STATE_HOME/shellcap, else ~/.local/state/shellcap, else (no usable
// home) a per-user directory in the host's temporary directory, which
// sandboxes see only as their own private /tmp.
func keyDir(dir string) string {
	if dir != "" {
		return dir
	}
	if x := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "shellcap")
	}
	if h := os.Getenv("HOME"); filepath.IsAbs(h) && h != "/" {
		if fi, err := os.Stat(h); err == nil && fi.IsDir() && writableDir(h) {
			return filepath.Join(h, ".local", "state", "shellcap")
		}
	}
	return filepath.Join(os.TempDir(), "shellcap-"+strconv.Itoa(os.Geteuid()))
}

// loadRecordKey reads the record key from dir, creating dir (0700) and
// the key (0600, 32 random bytes) on first use. dir must lie outside the
// workspace (a command that can write there could forge records) and be
// the current user's, writable by nobody else; the key must be the
// user's and private to them.
func loadRecordKey(dir, workspace string) (recordKey, error) {
	dir = keyDir(dir)
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("jobs: option KeyDir: %q is not an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("jobs: record key directory: %w", err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("jobs: record key directory: %w", err)
	}
	if ws, err := filepath.EvalSymlinks(workspace); err == nil && (real == ws || strings.HasPrefix(real, ws+"/") || ws == "/") {
		return nil, fmt.Errorf("jobs: the record key directory %s is inside the workspace %s; set Options.KeyDir (or $XDG_STATE_HOME) to a directory outside it", real, ws)
	}
	d, err := safefs.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("jobs: record key directory: %w", err)
	}
	defer d.Close()
	if err := checkPrivateDir(real); err != nil {
		return nil, err
	}
	for range 2 {
		data, err := d.ReadFile(keyFileName, keyLen)
		if err == nil {
			if err := checkPrivateFile(d, keyFileName); err != nil {
				return nil, err
			}
			if len(data) != keyLen {
				return nil, fmt.Errorf("jobs: the record key %s is %d bytes, not %d: remove it to make a new one", d.Join(keyFileName), len(data), keyLen)
			}
			return data, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("jobs: record key: %w", err)
		}
		key := make([]byte, keyLen)
		_, _ = rand.Read(key)
		if err := d.WriteFileExclusive(keyFileName, key, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("jobs: record key: %w", err)
		}
		// Made now, or by a concurrent Manager just before: read it back.
	}
	return nil, errors.New("jobs: record key: cannot be read back")
}

func checkPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("jobs: record key directory: %w", err)
	}
	// Others may read the directory, not replace what is in it.
	if err := ownedPrivate(fi, 0o022); err != nil {
		return fmt.Errorf("jobs: record key directory %s: %w", dir, err)
	}
	return nil
}

func checkPrivateFile(d *safefs.Dir, name string) error {
	fi, err := d.Lstat(name)
	if err != nil {
		return fmt.Errorf("jobs: record key: %w", err)
	}
	if err := ownedPrivate(fi, 0o077); err != nil {
		return fmt.Errorf("jobs: record key %s: %w", d.Join(name), err)
	}
	return nil
}
