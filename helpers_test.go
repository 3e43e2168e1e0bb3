package shellcap_test

import (
	"context"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/leaktest"
)

// newShell returns a Shell on a fresh workspace whose commands carry the
// leak-check mark; it is closed when the test ends.
func newShell(t *testing.T, opts shellcap.Options) *shellcap.Shell {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	env := leaktest.Env(testMark)
	for k, v := range opts.Env {
		env[k] = v
	}
	opts.Env = env
	sh, err := shellcap.New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { sh.Close() })
	return sh
}

// run runs command with a deadline that keeps a broken test from hanging.
func run(t *testing.T, sh *shellcap.Shell, req shellcap.Request) *shellcap.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := sh.Run(ctx, req)
	if err != nil {
		t.Fatalf("Run(%q): %v", req.Command, err)
	}
	return res
}
