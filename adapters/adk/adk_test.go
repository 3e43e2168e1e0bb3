package adk_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellcap/shellcap/adapters/adk"
	"github.com/shellcap/shellcap/policy"
)

func TestRunCommandOutputAndExitCode(t *testing.T) {
	h := newHarness(t, policy.Rules{}, adk.Options{})
	sid := h.newSession(t)
	got := h.call(t, sid, "run_command", `{"command":"echo hello; echo oops >&2; exit 3"}`)
	t.Logf("%#v", got)
	out, _ := got["output"].(string)
	for _, want := range []string{"hello", "oops", "3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output %q lacks %q", out, want)
		}
	}
	_ = os.Remove
	_ = filepath.Join
}
