package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The module paths that make a directory a shellcap checkout.
const (
	coreModule     = "github.com/shellcap/shellcap"
	temporalModule = "github.com/shellcap/shellcap/temporal"
)

// findCheckout returns the root of the shellcap checkout that holds the
// working directory: the nearest directory at or above it whose go.mod
// declares the core module and whose temporal/go.mod the Temporal module.
func findCheckout() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if moduleOf(filepath.Join(dir, "go.mod")) == coreModule &&
			moduleOf(filepath.Join(dir, "temporal", "go.mod")) == temporalModule {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// moduleOf returns the module path a go.mod file declares, or "".
func moduleOf(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if path, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(path), `"`)
		}
	}
	return ""
}

// buildFromCheckout builds the Temporal program of the checkout at root
// into the user's cache directory (one binary per checkout) and returns
// its path. The go command's output goes to stderr; a build whose
// sources did not change only relinks, from Go's build cache.
func buildFromCheckout(root string, stderr io.Writer) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is not on PATH: %w", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	out := filepath.Join(cache, "shellcap", "checkout", hex.EncodeToString(sum[:6]), temporalBinary)
	fmt.Fprintf(stderr, "shellcap: %s is not installed; building it from the checkout at %s into %s\n", temporalBinary, root, out)
	cmd := exec.Command(goBin, "build", "-o", out, "./cmd/"+temporalBinary)
	cmd.Dir = filepath.Join(root, "temporal")
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return out, nil
}
