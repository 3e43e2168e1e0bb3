package shellcap_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// TestPolicyKnowsShellEnvironment: the Shell tells its policy the
// environment commands run in, so that git commit --amend, which only opens
// the editor (GIT_EDITOR=true), is allowed and really runs without waiting;
// with an editor that waits it is refused as interactive.
func TestPolicyKnowsShellEnvironment(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	env := map[string]string{"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
	sh := newShell(t, shellcap.Options{Env: env})
	setup := run(t, sh, shellcap.Request{Command: "git init -q . && echo a > a && git add a && git commit -qm first"})
	if setup.Err != nil || setup.ExitCode != 0 {
		t.Fatalf("setup: %v %s", setup.Err, setup.Text())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := core.Of(sh).Admit(ctx, "git commit --amend"); err != nil {
		t.Fatalf("Admit(git commit --amend) refused under GIT_EDITOR=true: %v", err)
	}
	res := run(t, sh, shellcap.Request{Command: "git commit --amend && git log --format=%s"})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("git commit --amend: %v %s", res.Err, res.Text())
	}

	waits := map[string]string{"GIT_EDITOR": "vim", "EDITOR": "vim", "VISUAL": "vim"}
	for k, v := range env {
		waits[k] = v
	}
	strict := newShell(t, shellcap.Options{Env: waits})
	if err := core.Of(strict).Admit(ctx, "git commit --amend"); !errors.Is(err, shellcap.ErrDenied) {
		t.Fatalf("with GIT_EDITOR=vim, git commit --amend was not refused: %v", err)
	}
}
