package jobs_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoSandboxImport: package jobs confines through any shellcap.Confiner
// and knows nothing of package sandbox, on every platform it builds for.
func TestNoSandboxImport(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		cmd := exec.Command(gobin, "list", "-deps", "github.com/shellcap/shellcap/jobs")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOFLAGS=")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (GOOS=%s): %v", goos, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list (GOOS=%s) listed too little: %q", goos, deps)
		}
		for _, d := range deps {
			if d == "github.com/shellcap/shellcap/sandbox" {
				t.Errorf("GOOS=%s: jobs depends on %s", goos, d)
			}
		}
	}
}
