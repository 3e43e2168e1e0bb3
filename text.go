package shellcap

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shellcap/shellcap/internal/textfmt"
)

// Text returns exactly what a model should read: the labelled output, then
// the trailers (the exit-code line when the code is not zero, or the
// timeout line, then the notes, each a "[...]" line), all within TextLimit.
// It is a pure function of the exported fields.
//
// When the text is longer than TextLimit, what gives way, in this order:
//
//  1. the output (its beginning, or its middle with HeadAndTail), down to
//     minOutputChars characters;
//  2. the note naming the kept output files, shortened: paths relative to
//     the workspace, then also without the hint on how to read them;
//  3. the output, down to nothing;
//  4. the note naming the kept output files, dropped;
//  5. the other notes, whole, the last one first;
//  6. the exit-code or timeout line, only when TextLimit is smaller than
//     that line alone: the text is then the line's last TextLimit
//     characters.
//
// So the exit-code and timeout lines are always whole when TextLimit is at
// least their length, and no trailer is ever cut in the middle.
func (r *Result) Text() string {
	body, trailers := r.parts()
	full := join(body, trailers)
	if r.TextLimit <= 0 || utf8.RuneCountInString(full) <= r.TextLimit {
		return full
	}
	least := min(utf8.RuneCountInString(body), minOutputChars)
	if t, ok := r.fit(body, trailers, least); ok {
		return t
	}
	if i := r.keptNoteIndex(trailers); i >= 0 {
		note := trailers[i][1 : len(trailers[i])-1]
		var shorter [][]string
		for _, hint := range []bool{true, false} {
			shorter = append(shorter, slicesReplace(trailers, i, "["+shortKeptNote(note, hint)+"]"))
		}
		for _, least := range []int{least, 0} {
			for _, short := range shorter {
				if t, ok := r.fit(body, short, least); ok {
					return t
				}
			}
		}
		trailers = compact(slicesReplace(trailers, i, ""))
	}
	// The first trailer (the status line, when there is one) goes last.
	for {
		if t, ok := r.fit(body, trailers, 0); ok {
			return t
		}
		if len(trailers) <= 1 {
			break
		}
		trailers = trailers[:len(trailers)-1]
	}
	return textfmt.TruncateTail(join("", trailers), r.TextLimit)
}

// minOutputChars is how much output Text keeps, when there is that much,
// before it shortens the kept-output note.
const minOutputChars = 64

// fit renders body cut to whatever TextLimit leaves beside trailers, or
// reports that fewer than least characters of it would be left.
func (r *Result) fit(body string, trailers []string, least int) (string, bool) {
	need := 0
	for i, t := range trailers {
		if i > 0 {
			need++ // the newline between trailers
		}
		need += utf8.RuneCountInString(t)
	}
	budget := r.TextLimit - need
	if len(trailers) > 0 && body != "" {
		budget-- // the newline after the output
	}
	if budget < least || need > r.TextLimit {
		return "", false
	}
	if budget <= 0 || body == "" {
		return join("", trailers), true
	}
	if r.HeadAndTail {
		body = textfmt.TruncateHeadTail(body, budget)
	} else {
		body = textfmt.TruncateTail(body, budget)
	}
	return join(body, trailers), true
}

// parts returns the text before the cap: the output (or the refusal's
// message) and the trailer lines, most important first.
func (r *Result) parts() (body string, trailers []string) {
	if r.Err != nil {
		body = r.Err.Error()
	} else {
		body = r.sections()
		switch {
		case r.TimedOut:
			if body == noOutput {
				body = ""
			}
			trailers = append(trailers, "[Command timed out after "+textfmt.FormatSeconds(r.Timeout)+"]")
		case r.ExitCode != 0:
			trailers = append(trailers, "[exit code: "+strconv.Itoa(r.ExitCode)+"]")
		}
	}
	for _, n := range r.Notes {
		trailers = append(trailers, "["+n+"]")
	}
	return body, trailers
}

// fullText renders the text before the character cap.
func (r *Result) fullText() string { return join(r.parts()) }

// join puts the output and the trailers on separate lines.
func join(body string, trailers []string) string {
	t := strings.Join(trailers, "\n")
	switch {
	case body == "":
		return t
	case t == "":
		return body
	}
	return body + "\n" + t
}

const noOutput = "(no output)"

// sections renders "[stdout]\n..." and "[stderr]\n..." or "(no output)".
func (r *Result) sections() string {
	var parts []string
	if r.Stdout != "" {
		parts = append(parts, "[stdout]\n"+textfmt.ValidUTF8(r.Stdout))
	}
	if r.Stderr != "" {
		parts = append(parts, "[stderr]\n"+textfmt.ValidUTF8(r.Stderr))
	}
	if len(parts) == 0 {
		return noOutput
	}
	return strings.Join(parts, "\n")
}

// textTruncated reports whether Text drops characters.
func (r *Result) textTruncated() bool {
	if r.TextLimit <= 0 {
		return false
	}
	// A bound on the text's length in bytes, hence in code points, that
	// spares building it in the common case of a short result.
	n := len(r.Stdout) + len(r.Stderr) + len(noOutput) + len("[stdout]\n\n[stderr]\n\n[Command timed out after 0000000000.000000000s]")
	if r.Err != nil {
		n += len(r.Err.Error())
	}
	for _, note := range r.Notes {
		n += len(note) + len("\n[]")
	}
	if n <= r.TextLimit {
		return false
	}
	return utf8.RuneCountInString(r.fullText()) > r.TextLimit
}

// The note naming the kept output files (keepOutputs) is
// keptNotePrefix, "full stdout: PATH" parts joined by "; ", then
// keptNoteHint.
const (
	keptNotePrefix = "Output truncated; "
	keptNoteHint   = " (grep it or read parts with sed -n 'A,Bp')"
)

// keptNoteIndex returns the index in trailers of the note naming the kept
// output files, -1 when there is none.
func (r *Result) keptNoteIndex(trailers []string) int {
	if r.StdoutFile == "" && r.StderrFile == "" {
		return -1
	}
	for i, t := range trailers {
		if strings.HasPrefix(t, "["+keptNotePrefix) &&
			(r.StdoutFile != "" && strings.Contains(t, r.StdoutFile) || r.StderrFile != "" && strings.Contains(t, r.StderrFile)) {
			return i
		}
	}
	return -1
}

// shortKeptNote shortens the kept-output note: each path relative to the
// workspace (".shellcap/output/NAME"), and without the hint unless hint.
func shortKeptNote(note string, hint bool) string {
	note, hadHint := strings.CutSuffix(note, keptNoteHint)
	parts := strings.Split(strings.TrimPrefix(note, keptNotePrefix), "; ")
	for i, p := range parts {
		if j := strings.LastIndex(p, ": "); j >= 0 {
			parts[i] = p[:j+2] + workspaceRelative(p[j+2:])
		}
	}
	short := keptNotePrefix + strings.Join(parts, "; ")
	if hint && hadHint {
		short += keptNoteHint
	}
	return short
}

// workspaceRelative returns a kept output file's path from the workspace's
// state directory on: ".shellcap/output/NAME".
func workspaceRelative(path string) string {
	if i := strings.LastIndex(path, "/"+stateDirName+"/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

func slicesReplace(s []string, i int, v string) []string {
	c := append([]string(nil), s...)
	c[i] = v
	return c
}

func compact(s []string) []string {
	var c []string
	for _, v := range s {
		if v != "" {
			c = append(c, v)
		}
	}
	return c
}
