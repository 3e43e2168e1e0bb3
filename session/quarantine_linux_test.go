//go:build !shellcap_portable

package session_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSandboxedSessionQuarantine: what git would obey that a step of a
// sandboxed session creates is moved out of git's reach when the step
// ends and named in its result; what the session's shell writes in the
// background between steps is caught before the next step.
func TestSandboxedSessionQuarantine(t *testing.T) {
	ws := t.TempDir()
	s := newSandboxedSession(t, ws)
	res := run(t, s, "git init -q made && printf '#!/bin/sh\\necho pwned\\n' > made/.git/hooks/pre-commit && chmod +x made/.git/hooks/pre-commit")
	if res.ExitCode != 0 {
		t.Fatalf("%s", res.Text())
	}
	if res.Sandbox == nil || !slices.Contains(res.Sandbox.Quarantined, "made/.git/hooks/pre-commit") || !strings.Contains(res.Text(), ".shellcap/quarantine") {
		t.Fatalf("the hook was not quarantined: %+v\n%s", res.Sandbox, res.Text())
	}
	if _, err := os.Stat(filepath.Join(ws, "made/.git/hooks/pre-commit")); err == nil {
		t.Fatal("the hook is still in place")
	}
	res = run(t, s, "(sleep 0.3; echo \"$PWD/evil\" > made/.git/commondir) & echo started")
	if res.Stdout != "started\n" || len(res.Sandbox.Quarantined) != 0 {
		t.Fatalf("%+v %s", res.Sandbox, res.Text())
	}
	time.Sleep(time.Second)
	res = run(t, s, "test -e made/.git/commondir && echo present; true")
	if res.Stdout != "" || !slices.Contains(res.Sandbox.Quarantined, "made/.git/commondir") {
		t.Fatalf("commondir written between steps: %+v %s", res.Sandbox, res.Text())
	}
}
