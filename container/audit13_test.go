package container

import (
	"encoding/json"
	"errors"
	"strings"
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

// TestEmptyCommandRefused: an empty or blank command is refused by the
// Shell's Admit before any container starts: ErrEmptyCommand, the Shell's
// message, exit_code null in JSON.
func TestEmptyCommandRefused(t *testing.T) {
	e := newExecutor(t, testOptions(t))
	for _, c := range []string{"", "  ", "\t\n"} {
		res := run(t, e, shellcap.Request{Command: c})
		if !errors.Is(res.Err, shellcap.ErrEmptyCommand) || res.Text() != "The command is empty." {
			t.Errorf("%q: Err %v, Text %q", c, res.Err, res.Text())
		}
		if data, _ := json.Marshal(res); !strings.Contains(string(data), `"exit_code":null`) {
			t.Errorf("%q: JSON %s", c, data)
		}
	}
	if got := containersOf(t, e); len(got) != 0 {
		t.Errorf("blank commands started containers: %v", got)
	}
}
