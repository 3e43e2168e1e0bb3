//go:build linux

package main

import (
	"strings"
	"testing"
)

// TestPresentationSettingsReachEveryFrontEnd: the settings that shape what
// the model reads — head_and_tail, keep_ansi and the per-stream budgets —
// set once as a flag, reach `shellcap run`, and run_command and the bash
// tool of `shellcap mcp`.
func TestPresentationSettingsReachEveryFrontEnd(t *testing.T) {
	const esc = "\x1b[31mred\x1b[0m"
	cases := []struct {
		name  string
		flags []string
		cmd   string
		bash  bool // the bash tool honours it too
		check func(text string) bool
	}{
		{"head-and-tail", []string{"--head-and-tail", "--max-output-chars", "300"}, "seq 1 5000", true,
			func(s string) bool {
				return strings.Contains(s, "[stdout]\n1\n2\n3\n") && strings.Contains(s, "\n5000")
			}},
		{"tail only", []string{"--max-output-chars", "300"}, "seq 1 5000", true,
			func(s string) bool { return !strings.Contains(s, "\n1\n2\n3\n") && strings.Contains(s, "\n5000") }},
		{"keep-ansi", []string{"--keep-ansi"}, "printf '" + `\033[31mred\033[0m` + "'", true,
			func(s string) bool { return strings.Contains(s, esc) }},
		{"ansi stripped", nil, "printf '" + `\033[31mred\033[0m` + "'", true,
			func(s string) bool { return strings.Contains(s, "red") && !strings.Contains(s, "\x1b") }},
		{"stdout budgets", []string{"--stdout-head-chars", "12", "--stdout-tail-chars", "12"}, "seq 1 5000", true,
			func(s string) bool {
				return strings.Contains(s, "[stdout]\n1\n2\n3\n") && strings.Contains(s, "omitted") && strings.Contains(s, "4999\n5000")
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"run", "-w", t.TempDir(), "--sandbox", "full-access"}, c.flags...)
			if out, _ := cli(t, append(args, "--", c.cmd)...); !c.check(out) {
				t.Errorf("shellcap run %v: %q", c.flags, out)
			}
			_, cs := startServer(t, "mcp", lifeMark(t), append([]string{"--sandbox", "full-access"}, c.flags...)...)
			if text, _, _ := callToolResult(t, cs, "run_command", map[string]any{"command": c.cmd}); !c.check(text) {
				t.Errorf("run_command %v: %q", c.flags, text)
			}
			if c.bash {
				if text, _, _ := callToolResult(t, cs, "bash", map[string]any{"command": c.cmd}); !c.check(text) {
					t.Errorf("bash %v: %q", c.flags, text)
				}
			}
		})
	}
}
