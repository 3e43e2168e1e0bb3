package core

import (
	"fmt"
	"time"

	"github.com/shellcap/shellcap/internal/textfmt"
)

// MinTimeout is the shortest timeout any executor or front end accepts:
// shorter ones would round to no time at all (or, through a front end
// that counts in seconds, to zero, which means the default).
const MinTimeout = time.Millisecond

// TimeoutRange is the one message, for every executor and front end, for
// a timeout outside [MinTimeout, max]: "The timeout must be at least
// 0.001s and at most 600s (got 601s)." A front end passes the argument
// that carried it (arg, e.g. "timeout_seconds", named in parentheses; ""
// for none) and the value as the model gave it (got, cut).
func TimeoutRange(arg string, max time.Duration, got string) string {
	subject := "The timeout"
	if arg != "" {
		subject += " (" + arg + ")"
	}
	return fmt.Sprintf("%s must be at least %s and at most %s (got %s).",
		subject, textfmt.FormatSeconds(MinTimeout), textfmt.FormatSeconds(max), got)
}
