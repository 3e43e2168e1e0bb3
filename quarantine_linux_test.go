package shellcap_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/sandbox"
)

// TestRunQuarantine: a sandboxed Run that plants what the host's git
// would obey (a commondir, a hook in a repository it makes) gets it moved
// into .shellcap/quarantine, named in the result's text and JSON.
func TestRunQuarantine(t *testing.T) {
	c := sandbox.Doctor()
	if !c.UserNamespaces || c.LandlockABI == 0 || !c.Seccomp {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI machine cannot enforce the sandbox:\n%s", c.Text())
		}
		t.Skipf("machine cannot enforce the full sandbox:\n%s", c.Text())
	}
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	sh := newShell(t, shellcap.Options{Workspace: ws, Sandbox: sandbox.Confiner(sandbox.Config{})})
	res := run(t, sh, shellcap.Request{Command: "echo /tmp/evil > .git/commondir && git init -q made && echo x > made/.git/hooks/post-checkout"})
	if res.ExitCode != 0 {
		t.Fatal(res.Text())
	}
	for _, p := range []string{".git/commondir", "made/.git/hooks/post-checkout"} {
		if res.Sandbox == nil || !slices.Contains(res.Sandbox.Quarantined, p) {
			t.Errorf("%s not quarantined: %+v", p, res.Sandbox)
		}
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("%s is still in place", p)
		}
	}
	if !strings.Contains(res.Text(), "[sandbox: moved") || !strings.Contains(res.Text(), ".git/commondir") {
		t.Errorf("text: %s", res.Text())
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"quarantined":[`) {
		t.Errorf("json: %s", b)
	}
	res = run(t, sh, shellcap.Request{Command: "true"})
	if len(res.Sandbox.Quarantined) != 0 || strings.Contains(res.Text(), "moved") {
		t.Errorf("a quiet command reports a quarantine: %s", res.Text())
	}
}
