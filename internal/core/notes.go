package core

import (
	"strconv"

	"github.com/shellcap/shellcap/internal/textfmt"
)

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

// FileLimitNote is the note of a command that failed while the file-size
// limit (Options.MaxFileBytes, max_file_bytes) was in force: exceeded
// reports that SIGXFSZ ended it (or a child, the shell then exiting with
// 128+SIGXFSZ), which names the limit as the cause; otherwise the note only
// says the limit may have been reached. Empty when there is no limit.
func FileLimitNote(maxFileBytes int64, exceeded bool) string {
	if maxFileBytes <= 0 {
		return ""
	}
	limit := strconv.FormatInt(maxFileBytes, 10)
	if exceeded {
		return "File-size limit exceeded: max_file_bytes=" + limit + ". Reduce file output before retrying."
	}
	return "Command failed with max_file_bytes=" + limit + "; file writes may have reached the per-file limit."
}
