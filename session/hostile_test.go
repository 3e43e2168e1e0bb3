//go:build linux

package session_test

import (
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap/session"
)

// hostileCommands are things a command can do to its own shell that used
// to break the protocol: the session must keep working, with its state,
// and print nothing of its own into later results.
var hostileCommands = []struct {
	name, cmd string
	note      string // in the result of the command itself, when not empty
	out       string // the stdout of later commands, when not "f:yes\n"
}{
	{"builtin function", "builtin() { echo fake; }", "function(s) builtin were removed", ""},
	{"enable function", "enable() { echo fake; }", "function(s) enable were removed", ""},
	{"command function", "command() { echo fake; }", "", ""},
	{"eval function", "eval() { echo fake; }", "", ""},
	{"printf function", "printf() { echo fake; }", "", ""},
	{"echo function", "echo() { builtin echo fake; }", "", ""},
	{"read function", "read() { sleep 100; }", "", ""},
	{"exec function", "exec() { :; }", "", ""},
	{"trap function", "trap() { :; }", "", ""},
	{"set function", "set() { :; }", "", ""},
	{"source function", "source() { :; }", "", ""},
	{"return function", "return() { :; }", "", ""},
	{"unset function", "unset() { :; }", "", ""},
	{"declare function", "declare() { :; }", "", ""},
	{"local function", "local() { :; }", "", ""},
	{"cd function", "cd() { :; }", "", ""},
	{"pwd function", "pwd() { :; }", "", ""},
	{"export function", "export() { :; }", "", ""},
	{"readonly function", "readonly() { :; }", "", ""},
	{"alias function", "alias() { :; }", "", ""},
	{"enable -n printf", "enable -n printf", "builtin(s) printf were enabled again", ""},
	{"enable -n builtin", "enable -n builtin", "builtin(s) builtin were enabled again", ""},
	{"enable -n eval", "enable -n eval", "builtin(s) eval were enabled again", ""},
	{"enable -n many", "enable -n read cd set export unset trap exec exit declare alias", "enabled again", ""},
	{"exec stdout to null", "exec >/dev/null", "were undone after this command", ""},
	{"exec close stdout", "exec 1>&-", "were undone after this command", ""},
	{"exec close stderr", "exec 2>&-", "were undone after this command", ""},
	{"exec both to null", "exec &>/dev/null", "were undone after this command", ""},
	{"exec stdin", "exec </dev/zero", "were undone after this command", ""},
	{"exec protocol fds", "exec 5>/dev/null 6>/dev/null 3>&- 4<&-", "", ""},
	{"readonly PS1", "readonly PS1='prompt$ '", "", ""},
	{"readonly PS2", "readonly PS2='cont> '", "", ""},
	{"readonly PS0", "readonly PS0='ps0 '", "", ""},
	{"readonly PS4", "readonly PS4='ps4 '", "", ""},
	{"readonly PROMPT_COMMAND", "readonly PROMPT_COMMAND='echo pc; echo pcerr >&2'", "", ""},
	{"DEBUG trap", "trap 'echo x; echo y >&2' DEBUG", "", ""},
	{"functrace DEBUG trap", "set -T; trap 'echo x; echo y >&2' DEBUG", "", ""},
	{"RETURN trap", "set -T; trap 'echo r' RETURN", "", ""},
	{"verbose", "set -v", "", ""},
	{"xtrace PS4", "PS4='+$(echo ps4) '; set -x", "", ""},
	{"errtrace ERR trap", "set -E; trap 'echo err' ERR", "", "f:yes\nerr\n"},
	{"posix mode", "set -o posix", "", ""},
	{"nounset", "set -u", "", ""},
}

// TestHostileCommandsKeepSession runs each hostile command in a fresh
// session with some state, then ordinary commands: each later result is
// exactly the command's own output, with no restart and the state intact.
func TestHostileCommandsKeepSession(t *testing.T) {
	for _, tc := range hostileCommands {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, session.Options{DefaultTimeout: 20 * time.Second})
			run(t, s, "kept=yes; f() { builtin echo \"f:$kept\"; }")
			res := run(t, s, tc.cmd)
			if res.Restarted || res.TimedOut {
				t.Fatalf("Run(%q) restarted or timed out:\n%s", tc.cmd, res.Text())
			}
			if tc.note != "" && !strings.Contains(res.Text(), tc.note) {
				t.Errorf("Run(%q): want a note with %q:\n%s", tc.cmd, tc.note, res.Text())
			}
			out := tc.out
			if out == "" {
				out = "f:yes\n"
			}
			for i := 0; i < 2; i++ {
				res = run(t, s, "f; builtin echo err >&2; (exit 3)")
				if res.Restarted || res.TimedOut || res.ExitCode != 3 || res.Stdout != out || res.Stderr != "err\n" {
					t.Fatalf("after %q, call %d: exit %d, restarted %v, stdout %q, stderr %q\n%s",
						tc.cmd, i+1, res.ExitCode, res.Restarted, res.Stdout, res.Stderr, res.Text())
				}
			}
		})
	}
}

// TestHiddenSabotage breaks the protocol from a command whose text shows
// nothing of it (a function defined earlier, a name put together at run
// time): the cheap step notices and repairs it too.
func TestHiddenSabotage(t *testing.T) {
	for _, tc := range []struct{ name, define, call string }{
		{"disable printf in a function", "f() { enable -n printf; }", "f"},
		{"disable builtin by a built name", "x=ena y=ble", "$x$y -n builtin"},
		{"disable printf and eval by a built name", "x=ena y=ble", "$x$y -n printf eval"},
		{"define builtin in a function", "g() { builtin() { echo fake; }; }", "g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t, session.Options{DefaultTimeout: 20 * time.Second})
			run(t, s, "kept=yes")
			run(t, s, tc.define)
			if res := run(t, s, tc.call); res.Restarted || res.TimedOut || res.ExitCode != 0 {
				t.Fatalf("Run(%q): %s", tc.call, res.Text())
			}
			for i := 0; i < 2; i++ {
				want(t, run(t, s, "echo $kept"), "[stdout]\nyes\n")
			}
		})
	}
}

// TestEnableDisabled disables enable itself with a builtin the protocol
// needs: the shell cannot be repaired, so it is replaced at once (no wait
// for the timeout) with a note that says why, and its state carries over.
func TestEnableDisabled(t *testing.T) {
	s := newSession(t, session.Options{DefaultTimeout: 20 * time.Second})
	run(t, s, "kept=yes; f() { echo f; }")
	res := run(t, s, "enable -n enable printf")
	if !res.Restarted || res.TimedOut || !strings.Contains(res.Text(), "could not enable the builtins the session needs again") {
		t.Fatalf("restarted %v, timed out %v:\n%s", res.Restarted, res.TimedOut, res.Text())
	}
	want(t, run(t, s, "echo $kept; f"), "[stdout]\nyes\nf\n")
}
