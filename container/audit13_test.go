package container

import (
	"testing"

	"github.com/shellcap/shellcap"
)

// TestStreamBudgetsFromShell: the Shell's per-stream head and tail budgets
// (Options.StdoutBudget, StderrBudget) cut a container command's output
// as they cut Shell.Run's: the same Stdout and Stderr, the same omitted
// counts.
func TestStreamBudgetsFromShell(t *testing.T) {
	requirePodman(t)
	sh := testShell(t, shellcap.Options{
		StdoutBudget: shellcap.Budget{Head: 20, Tail: 30},
		StderrBudget: shellcap.Budget{Head: 5, Tail: 5},
	})
	const cmd = "seq 1 2000; seq 1 500 >&2"
	want, err := sh.Run(t.Context(), shellcap.Request{Command: cmd})
	if err != nil || want.StdoutOmitted == 0 || want.StderrOmitted == 0 {
		t.Fatalf("Shell.Run: %v %+v", err, want)
	}
	got := run(t, newExecutorOn(t, sh, testOptions(t)), shellcap.Request{Command: cmd})
	if got.Stdout != want.Stdout || got.Stderr != want.Stderr ||
		got.StdoutOmitted != want.StdoutOmitted || got.StderrOmitted != want.StderrOmitted ||
		got.StdoutBytes != want.StdoutBytes || got.StderrBytes != want.StderrBytes {
		t.Errorf("container:\n%q %d\n%q %d\nShell.Run:\n%q %d\n%q %d", got.Stdout, got.StdoutOmitted, got.Stderr, got.StderrOmitted,
			want.Stdout, want.StdoutOmitted, want.Stderr, want.StderrOmitted)
	}
}
