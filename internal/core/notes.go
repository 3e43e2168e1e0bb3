package core

import "github.com/shellcap/shellcap/internal/textfmt"

// How an executor stopped a command, the second half of the notes below.
const (
	// StoppedGroup is how Shell.Run and jobs stop a process group.
	StoppedGroup = "its process group was stopped"
	// StoppedCommand is the output-limit counterpart of StoppedGroup.
	StoppedCommand = "the command was stopped"
)

// CanceledNote is the note of a command stopped because the caller's
// context ended; how says what was done to it (StoppedGroup, or e.g. "it
// was interrupted" for a session).
func CanceledNote(how string) string {
	return "Command was cancelled; " + how + "."
}

// OutputLimitNote is the note of a command stopped because it printed more
// than maxBytes (stdout and stderr together); how says what was done to it
// (StoppedCommand, or e.g. "the command was interrupted" for a session).
func OutputLimitNote(maxBytes int64, how string) string {
	return "Output exceeded " + textfmt.FormatBytes(maxBytes) + "; " + how +
		". Redirect large output to a file and read parts of it."
}
