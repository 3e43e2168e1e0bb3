package policy

import (
	"fmt"
	"strings"
)

// tmux and screen run commands in new windows, and type keys into the
// shells of existing ones: both are shell code.

// tmuxValues are the options of each tmux command that take a value.
var tmuxValues = map[string]string{
	"new-session": "cefFnstxy", "new": "cefFnstxy", "new-window": "cefFnst", "neww": "cefFnst",
	"split-window": "celtF", "splitw": "celtF", "respawn-pane": "cet", "respawnp": "cet", "respawn-window": "cet",
	"respawnw": "cet", "run-shell": "cdt", "run": "cdt", "display-popup": "bcdehstTxyS", "popup": "bcdehstTxyS",
	"pipe-pane": "t", "pipep": "t",
}

// tmux checks the shell commands of tmux new-session, new-window,
// split-window, respawn-pane, run-shell, display-popup and pipe-pane, and
// the keys send-keys types into a shell.
func (c *checker) tmux(cl *call, args []word) {
	_, i := parseOpts(args, optSpec{short: "LSfcT"})
	if i >= len(args) {
		return
	}
	sub := args[i]
	if !sub.lit {
		c.runtime(fmt.Sprintf("tmux has the command %s, only known at run time", pyRepr(short(sub.val))), sub.written(), sub.off)
		return
	}
	rest := args[i+1:]
	switch sub.val {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp",
		"respawn-window", "respawnw", "run-shell", "run", "display-popup", "popup", "pipe-pane", "pipep":
		_, j := parseOpts(rest, optSpec{short: tmuxValues[sub.val]})
		c.joinedCode(cl, rest[j:], "tmux "+sub.val)
	case "send-keys", "send":
		opts, j := parseOpts(rest, optSpec{short: "Nt"})
		if hasOpt(opts, "-X") {
			return // copy-mode commands, not keys
		}
		var keys []word
		for _, k := range rest[j:] {
			if k.lit && tmuxKeyName(k.val) {
				continue
			}
			keys = append(keys, k)
		}
		c.joinedCode(cl, keys, "tmux send-keys")
	}
}

// tmuxKeyName reports a key name rather than text: Enter, C-m, M-x, F1.
func tmuxKeyName(s string) bool {
	switch s {
	case "Enter", "Escape", "Tab", "Space", "BSpace", "Up", "Down", "Left", "Right", "Home", "End", "PageUp", "PageDown", "PPage", "NPage", "DC", "IC":
		return true
	}
	return len(s) >= 3 && (s[0] == 'C' || s[0] == 'M' || s[0] == 'S') && s[1] == '-' && !strings.ContainsAny(s, " ")
}

// screen -dm CMD runs CMD in a detached window; screen -X stuff TEXT types
// TEXT into the window's shell.
func (c *checker) screen(cl *call, args []word, inner func([]word, string) (call, bool)) (call, bool) {
	opts, i := parseOpts(args, optSpec{short: "SceEhpstTD", long: []string{"logfile"}})
	if hasOpt(opts, "-X") {
		for k := i; k < len(args); k++ {
			if args[k].lit && args[k].val == "stuff" && k+1 < len(args) {
				text := args[k+1]
				if text.lit {
					text.val = strings.NewReplacer(`\n`, "\n", `\r`, "\n", "^M", "\n").Replace(text.val)
					text.exact = false
				}
				c.code(cl, text, "screen -X stuff")
			}
		}
		return call{}, false
	}
	if hasOpt(opts, "-ls", "-list", "-r", "-R", "-x", "-v", "-wipe", "-Q") {
		return call{}, false
	}
	return inner(args[i:], "screen")
}
