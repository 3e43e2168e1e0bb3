package mcpserver_test

import (
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// The shell tool's handles come last in its result, so a small output cap
// keeps the PID line and the paths whole.
func TestShellToolHandlesSurviveTheCap(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{MaxOutputChars: 600}, nil, &mcpserver.Options{})
	got := text(call(t, cs, mcpserver.ShellTool, map[string]any{"command": "seq 1 20000", "timeout": 60}))
	handles := regexp.MustCompile("\nPID: \\d+ \\(use `kill -- -\\d+` to stop the whole process tree\\)\nOutput: \\S+/output\\.log\nStatus: \\S+/status\\.json$")
	if utf8.RuneCountInString(got) > 600 || !handles.MatchString(got) {
		t.Fatalf("shell with a 600-character cap: %q", got)
	}
}
