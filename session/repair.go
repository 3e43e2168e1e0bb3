package session

import (
	"strings"
)

// What a command can do to its own shell that the protocol takes back
// after it, and the notes that say so in the result of that command.

// repairWords are the words that suggest a command may shadow or disable
// what the protocol calls (a function named builtin, enable -n printf) or
// move the descriptors it keeps (exec 5>file); only such commands get the
// checked step (doneFunc's CHECK, evalRedirs' check), which reports what it
// repaired. The common step repairs too, more cheaply.
var repairWords = []string{"enable", "builtin", "()", "function", "source", ". ", "eval", "exec", "unset"}

// mayRepair reports whether the step of command should report what doneFunc
// repaired.
func mayRepair(command string) bool {
	for _, w := range repairWords {
		if strings.Contains(command, w) {
			return true
		}
	}
	return false
}

// repairNotes says what doneFunc took back after the command.
func repairNotes(rec record) []string {
	var notes []string
	if len(rec.removed) > 0 {
		notes = append(notes, "The function(s) "+strings.Join(rec.removed, ", ")+" were removed after the command: the session "+
			"calls the builtins of those names between commands, so they cannot be replaced by functions. Use another name.")
	}
	if len(rec.disabled) > 0 {
		notes = append(notes, "The builtin(s) "+strings.Join(rec.disabled, ", ")+" were enabled again after the command: "+
			"enable -n lasts for one call in a session.")
	}
	return notes
}

// redirectNote says that the command redirected the shell's own standard
// input, output or error with exec and that the session undid it after the
// command (so that later results show their output); empty when the text
// shows no such exec.
func redirectNote(command string) string {
	if !execRedirects(command) {
		return ""
	}
	return "exec redirections of the shell's standard input, output or error last for one call in a session: " +
		"they were undone after this command, so later commands print to the result again. " +
		"To keep output out of the result, redirect each command (cmd >file)."
}

// execRedirects reports whether command has an exec word followed, in the
// same simple command, by a redirection of descriptor 0, 1 or 2 (or one
// without a number).
func execRedirects(command string) bool {
	for i := 0; ; {
		j := strings.Index(command[i:], "exec")
		if j < 0 {
			return false
		}
		at := i + j
		i = at + 4
		if !atCommandStart(command[:at]) || (i < len(command) && !strings.ContainsRune(" \t", rune(command[i]))) {
			continue
		}
		rest := command[i:]
		if end := strings.IndexAny(rest, ";|\n)"); end >= 0 {
			rest = rest[:end]
		}
		for k := 0; k < len(rest); k++ {
			if rest[k] != '>' && rest[k] != '<' {
				continue
			}
			// The descriptor number written just before the operator.
			d := k
			for d > 0 && rest[d-1] >= '0' && rest[d-1] <= '9' {
				d--
			}
			if n := rest[d:k]; (n == "" || n == "0" || n == "1" || n == "2") && (d == 0 || rest[d-1] == ' ' || rest[d-1] == '\t' || rest[d-1] == '&') {
				return true
			}
		}
	}
}

// cutTTYErrors removes the lines an interactive bash without a terminal
// prints when a command it waits for is killed by a signal
// ("bash: [PID: 1 (255)] tcsetattr: Inappropriate ioctl for device"): they
// are the shell's, not the command's.
func cutTTYErrors(stderr string) string {
	if !strings.Contains(stderr, "tcsetattr") && !strings.Contains(stderr, "tcgetattr") {
		return stderr
	}
	var b strings.Builder
	for line := range strings.SplitAfterSeq(stderr, "\n") {
		if strings.HasPrefix(line, "bash: [") && (strings.Contains(line, "] tcsetattr: ") || strings.Contains(line, "] tcgetattr: ")) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
