//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemporalDispatch: `shellcap worker ...` and `shellcap serve
// --temporal ...` run shellcap-temporal from PATH with the same
// arguments, streams and exit status; `serve` without --temporal (or with
// it after --) does not. The worker's option flags (--sandbox, --config,
// ...) pass through unchanged.
func TestTemporalDispatch(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\nread line; echo \"stdin: $line\"; echo err >&2\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, "shellcap-temporal"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	for _, args := range [][]string{
		{"worker", "--temporal", "t:7233", "--host", "h", "--workspace", "/w"},
		// The worker's option flags, as `shellcap serve` has them, go
		// through as they are: shellcap-temporal parses them.
		{"worker", "--temporal", "t:7233", "--host", "h", "--workspace", "/w", "--workspace", "/v", "--sandbox", "full-access",
			"--config", "/c.yaml", "--deny=rm,curl", "--allow-host", "example.com", "--no-deny-list", "--log-level", "info", "--", "x"},
		{"serve", "--workspace", "h:/w", "--temporal", "t:7233"},
		{"serve", "--temporal=t:7233", "--workspace", "h:/w", "--stdio"},
	} {
		var stdout, stderr bytes.Buffer
		status := run(args, strings.NewReader("hello\n"), &stdout, &stderr)
		want := "args: " + strings.Join(args, " ") + "\nstdin: hello\n"
		if status != 7 || stdout.String() != want || stderr.String() != "err\n" {
			t.Errorf("%q: status %d, stdout %q, stderr %q; want 7, %q, \"err\\n\"", args, status, stdout.String(), stderr.String(), want)
		}
	}
	if isTemporalServe([]string{"serve", "--addr", "127.0.0.1:0"}) || isTemporalServe([]string{"serve", "--", "--temporal"}) || isTemporalServe([]string{"run", "--temporal"}) {
		t.Error("a command without --temporal is sent to shellcap-temporal")
	}
}
