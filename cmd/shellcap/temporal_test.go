//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
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

// TestCheckoutOfBinary: a shellcap built in a checkout (this test binary
// is) knows that checkout from its own source path, wherever it runs; a
// directory is one only with both modules' go.mod.
func TestCheckoutOfBinary(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "..")) // the test runs in <root>/cmd/shellcap
	if err != nil {
		t.Fatal(err)
	}
	if root, ok := findCheckout(); !ok || root != want {
		t.Errorf("findCheckout() = %q, %v; want %q, true", root, ok, want)
	}
	// A working directory inside a tree that claims to be a checkout
	// changes nothing: that tree's code is never built.
	claim := t.TempDir()
	writeTree(t, claim, map[string]string{"go.mod": "module " + coreModule + "\n", "temporal/go.mod": "module " + temporalModule + "\n"})
	t.Chdir(filepath.Join(claim, "temporal"))
	if root, _ := findCheckout(); root != want {
		t.Errorf("with the working directory in %s, findCheckout() = %q; want %q, the binary's own checkout", claim, root, want)
	}
	if !isCheckout(claim) {
		t.Fatal("the claiming tree has both go.mod files, yet is not a checkout")
	}
	core := t.TempDir() // the shape of the module cache: no nested module
	writeTree(t, core, map[string]string{"go.mod": "module " + coreModule + "\n"})
	if isCheckout(core) || isCheckout(t.TempDir()) {
		t.Error("a directory without both go.mod files counts as a checkout")
	}
}

// TestTemporalFromCheckout: with shellcap-temporal not installed, a
// shellcap built in a checkout builds the checkout's program and runs it
// with the same arguments and exit status, or says why it could not build
// it; one built elsewhere says how to install it.
func TestTemporalFromCheckout(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	gocache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache))) // the warm build cache, whatever XDG_CACHE_HOME says
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", filepath.Dir(goBin)+":/usr/bin:/bin") // no shellcap-temporal anywhere

	root := t.TempDir()
	mainGo := filepath.Join(root, "temporal", "cmd", "shellcap-temporal", "main.go")
	writeTree(t, root, map[string]string{
		"go.mod":          "module " + coreModule + "\n\ngo 1.26\n",
		"temporal/go.mod": "module " + temporalModule + "\n\ngo 1.26\n",
		mainGo[len(root)+1:]: "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\n" +
			"func main() { fmt.Println(\"checkout build:\", strings.Join(os.Args[1:], \" \")); os.Exit(7) }\n",
	})
	defer func(f func() (string, bool)) { findCheckout = f }(findCheckout)
	args := []string{"worker", "--temporal", "t:7233", "--host", "h", "--workspace", "/w"}
	var stdout, stderr bytes.Buffer
	runIt := func() int {
		stdout.Reset()
		stderr.Reset()
		return run(args, strings.NewReader(""), &stdout, &stderr)
	}

	// Built in the checkout at root.
	findCheckout = func() (string, bool) { return root, isCheckout(root) }
	if status := runIt(); status != 7 || stdout.String() != "checkout build: "+strings.Join(args, " ")+"\n" {
		t.Fatalf("built in a checkout: status %d, stdout %q, stderr %q; want 7 and the program's line", status, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "building it from the checkout at "+root) {
		t.Errorf("stderr does not say what is built: %q", stderr.String())
	}

	// Not built in a checkout (installed, or -trimpath): nothing is
	// built, and the message says how to install it. (That the working
	// directory plays no part is TestCheckoutOfBinary's.)
	findCheckout = func() (string, bool) { return "", false }
	if status := runIt(); status != exitFailure || stdout.Len() != 0 || !strings.Contains(stderr.String(), "not installed") ||
		!strings.Contains(stderr.String(), temporalInstall) {
		t.Errorf("not built in a checkout: status %d, stdout %q, stderr %q; want %d, nothing run, and how to install it",
			status, stdout.String(), stderr.String(), exitFailure)
	}

	// The checkout it was built in no longer builds.
	if err := os.WriteFile(mainGo, []byte("package main\n\nfunc main() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findCheckout = func() (string, bool) { return root, isCheckout(root) }
	if status := runIt(); status != exitFailure || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), "undefined: undefined") ||
		!strings.Contains(stderr.String(), "building it from the checkout at "+root+" failed: go build") {
		t.Errorf("a checkout that does not build: status %d, stdout %q, stderr %q; want %d, the compiler's error and what failed",
			status, stdout.String(), stderr.String(), exitFailure)
	}
}

// writeTree writes files (slash-separated paths relative to root, and
// their contents) under root, making the directories they need.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
