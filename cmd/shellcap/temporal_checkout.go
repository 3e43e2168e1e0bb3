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
	"runtime"
	"strings"
)

// The module paths that make a directory a shellcap checkout.
const (
	coreModule     = "github.com/shellcap/shellcap"
	temporalModule = "github.com/shellcap/shellcap/temporal"
)

// findCheckout returns the root of the shellcap checkout this binary was
// built from (go run or go build there), when it is still one: its own
// source file's path, recorded at build time, names it. A binary built
// with -trimpath, or installed from the module cache (which holds no
// nested module), has none. The working directory plays no part, so a
// tree that merely claims to be shellcap is never built.
var findCheckout = func() (string, bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", false
	}
	root := filepath.Dir(filepath.Dir(filepath.Dir(file))) // <root>/cmd/shellcap/temporal_checkout.go
	return root, isCheckout(root)
}

// isCheckout reports whether root's go.mod declares the core module and
// its temporal/go.mod the Temporal module.
func isCheckout(root string) bool {
	return moduleOf(filepath.Join(root, "go.mod")) == coreModule &&
		moduleOf(filepath.Join(root, "temporal", "go.mod")) == temporalModule
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
