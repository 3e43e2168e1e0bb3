package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// TrustFileName is the file in the user's configuration directory
// ([UserDir]) that records the trusted workspace configuration files.
const TrustFileName = "trusted.json"

// ErrNotTrustable reports a configuration file that cannot be trusted: a
// symbolic link, or not a regular file.
var ErrNotTrustable = errors.New("config: the file cannot be trusted")

// A TrustStore records the workspace configuration files the user trusted
// with `shellcap config trust`: each file's absolute path with the SHA-256
// of the content the user saw. A file whose content changed since is
// untrusted again. The store lives in the user's configuration directory,
// outside any workspace.
type TrustStore struct {
	// Path is the store's file, such as ~/.config/shellcap/trusted.json.
	Path string
}

// trustRecord is the store's file format.
type trustRecord struct {
	// Files maps a file's canonical path to "sha256:" and the hex digest
	// of its trusted content.
	Files map[string]string `json:"files"`
}

// Digest is the form in which the store records data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CanonicalPath is the path a configuration file is recorded under: made
// absolute, with the symlinks of its directory resolved. The file itself
// must be a regular file, not a symlink ([ErrNotTrustable]), so a
// workspace cannot point its configuration at a file the user trusted
// elsewhere.
func CanonicalPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	p := filepath.Join(dir, filepath.Base(abs))
	fi, err := os.Lstat(p)
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s is not a regular file (%s)", ErrNotTrustable, p, fi.Mode().Type())
	}
	return p, nil
}

func (t *TrustStore) read() (trustRecord, error) {
	rec := trustRecord{Files: map[string]string{}}
	data, err := os.ReadFile(t.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("config: trust store: %w", err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("config: trust store %s: %v (remove it and trust the files again)", t.Path, err)
	}
	if rec.Files == nil {
		rec.Files = map[string]string{}
	}
	return rec, nil
}

func (t *TrustStore) write(rec trustRecord) error {
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return fmt.Errorf("config: trust store: %w", err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.Path), ".trusted-*.json")
	if err != nil {
		return fmt.Errorf("config: trust store: %w", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: trust store: %w", err)
	}
	if err := os.Rename(tmp.Name(), t.Path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("config: trust store: %w", err)
	}
	return nil
}

// Trust records the file at path with its current content, and returns
// its canonical path and digest. The file must parse as a configuration.
func (t *TrustStore) Trust(path string) (canon, digest string, err error) {
	if canon, err = CanonicalPath(path); err != nil {
		return "", "", err
	}
	data, err := os.ReadFile(canon)
	if err != nil {
		return "", "", fmt.Errorf("config: %w", err)
	}
	if _, err := Parse(data, path); err != nil {
		return "", "", err
	}
	rec, err := t.read()
	if err != nil {
		return "", "", err
	}
	digest = Digest(data)
	rec.Files[canon] = digest
	return canon, digest, t.write(rec)
}

// Untrust removes the record of the file at path; it reports whether there
// was one.
func (t *TrustStore) Untrust(path string) (bool, error) {
	canon, err := CanonicalPath(path)
	if err != nil {
		// A file gone or replaced by a link is still forgotten by name.
		if canon, err = filepath.Abs(path); err != nil {
			return false, err
		}
	}
	rec, err := t.read()
	if err != nil {
		return false, err
	}
	if _, ok := rec.Files[canon]; !ok {
		return false, nil
	}
	delete(rec.Files, canon)
	return true, t.write(rec)
}

// List returns the recorded paths, sorted, with their digests.
func (t *TrustStore) List() ([][2]string, error) {
	rec, err := t.read()
	if err != nil {
		return nil, err
	}
	out := make([][2]string, 0, len(rec.Files))
	for p, d := range rec.Files {
		out = append(out, [2]string{p, d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

// Trusted reports whether the store records canon (a [CanonicalPath]) with
// data's digest.
func (t *TrustStore) Trusted(canon string, data []byte) (bool, error) {
	rec, err := t.read()
	if err != nil {
		return false, err
	}
	return rec.Files[canon] == Digest(data), nil
}

// WorkspaceFile is a configuration file found in a workspace or the
// current directory, read once: the content that was hashed is the
// content that was parsed.
type WorkspaceFile struct {
	// Path is the file's canonical path, or the path as found when it is
	// a symlink (never trusted).
	Path string
	// File is its configuration.
	File *File
	// Trusted reports that the store records this path with this
	// content.
	Trusted bool
}

// LoadWorkspaceFile reads the configuration file at path and checks it
// against store (nil trusts nothing).
func LoadWorkspaceFile(path string, store *TrustStore) (*WorkspaceFile, error) {
	canon, cerr := CanonicalPath(path)
	read := canon
	if cerr != nil {
		if !errors.Is(cerr, ErrNotTrustable) {
			return nil, cerr
		}
		read = path // a symlink: read what it points at, tighten-only
	}
	data, err := os.ReadFile(read)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	f, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	w := &WorkspaceFile{Path: read, File: f}
	if cerr == nil && store != nil {
		if w.Trusted, err = store.Trusted(canon, data); err != nil {
			return nil, err
		}
	}
	return w, nil
}
