package jobs

import (
	"strings"
	"unicode/utf8"
)

// fitTrailers renders body, then each trailer on its own line, within
// maxChars code points (no cap when maxChars <= 0). What gives way, in this
// order: the body (its end is kept, with the truncation marker), then the
// trailers whole, the first one first. The last trailer (the exit code or
// the status) is whole whenever maxChars can hold it; when it cannot, the
// text is its last maxChars characters. So no trailer is ever cut in the
// middle, as in [shellcap.Result.Text].
func fitTrailers(body string, trailers []string, maxChars int) string {
	full := joinLines(body, trailers)
	if maxChars <= 0 || utf8.RuneCountInString(full) <= maxChars {
		return full
	}
	for {
		tail := strings.Join(trailers, "\n")
		need := utf8.RuneCountInString(tail)
		if need <= maxChars {
			budget := maxChars - need - 1 // the newline after the body
			if body == "" || budget <= 0 {
				return tail
			}
			return capText(body, budget) + "\n" + tail
		}
		if len(trailers) <= 1 {
			return capText(tail, maxChars)
		}
		trailers = trailers[1:]
	}
}

// joinLines puts body and the trailers on separate lines.
func joinLines(body string, trailers []string) string {
	t := strings.Join(trailers, "\n")
	switch {
	case body == "":
		return t
	case t == "":
		return body
	}
	return body + "\n" + t
}
