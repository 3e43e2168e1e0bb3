package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// TestBashTool: the bash tool keeps state across calls like Anthropic's
// bash tool, and restart discards it.
func TestBashTool(t *testing.T) {
	cs, _ := connect(t, shellcap.Options{}, nil)
	steps := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"command": "export GREETING=hi; mkdir -p sub && cd sub; f() { echo fn-$1; }"}, "(no output)"},
		{map[string]any{"command": "echo $GREETING $(basename $PWD) $(f x)"}, "[stdout]\nhi sub fn-x\n"},
		{map[string]any{"command": "cat; read x; echo read=$?"}, "[stdout]\nread=1\n"},
		{map[string]any{"command": "exit 3"}, ""},
		{map[string]any{"command": "echo $GREETING $(basename $PWD)"}, "[stdout]\nhi sub\n"},
		{map[string]any{"restart": true}, "The bash session was restarted."},
		{map[string]any{"command": "echo [$GREETING]"}, "[stdout]\n[]\n"},
	}
	for i, st := range steps {
		res := call(t, cs, mcpserver.BashTool, st.args)
		got := text(res)
		if st.want == "" {
			if !strings.Contains(got, "[exit code: 3]") {
				t.Fatalf("step %d (%v): %q, want exit code 3 and a restart note", i, st.args, got)
			}
			continue
		}
		if got != st.want {
			t.Fatalf("step %d (%v): %q, want %q", i, st.args, got, st.want)
		}
	}
	if res := call(t, cs, mcpserver.BashTool, map[string]any{}); !res.IsError {
		t.Fatal("a call with neither command nor restart was accepted")
	}
	if res := call(t, cs, mcpserver.BashTool, map[string]any{"command": "rm -rf sub"}); !res.IsError || text(res) != "Command 'rm' is denied." {
		t.Fatalf("policy in the bash tool: %v %q", res.IsError, text(res))
	}
}
