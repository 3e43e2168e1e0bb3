package toolset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
)

// This file is the one argument decoder every tool handler uses: strict
// decoding, required arguments, null for an absent optional argument,
// timeouts in seconds, and echoed input cut to a length a message can
// carry.

// maxEcho is how many characters of the model's own input a message
// repeats; the rest is replaced by an ellipsis.
const maxEcho = 100

// MinTimeout is the shortest timeout a tool accepts (timeout_seconds of
// run_command, bash and wait_command, timeout of shell). Shorter values,
// which would round to no timeout at all, are refused.
const MinTimeout = core.MinTimeout

// Echo quotes the model's input s for a message, cut to maxEcho
// characters with an ellipsis.
func Echo(s string) string { return strconv.Quote(cut(s)) }

// cut shortens s to maxEcho characters, ending it with an ellipsis when
// anything was dropped; invalid UTF-8 is replaced.
func cut(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= maxEcho {
		return s
	}
	r := []rune(s)
	return string(r[:maxEcho-1]) + "…"
}

// decodeArgs unmarshals the arguments of tool strictly into v: an unknown
// argument or a value of the wrong type is a result for the model (nil
// when the arguments decoded). JSON null for an argument is the same as
// leaving it out.
func decodeArgs(tool string, raw json.RawMessage, v any) *Result {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var msg string
	var te *json.UnmarshalTypeError
	var ae *argError
	switch {
	case errors.As(err, &ae):
		msg = ae.Error()
	case errors.As(err, &te) && te.Field == "":
		msg = fmt.Sprintf("the arguments must be a JSON object, not a JSON %s", te.Value)
	case errors.As(err, &te) && te.Field != "":
		// The arguments are flat: the field path names Go's embedded
		// structs (idArgs.command_id), not the model's JSON.
		field := te.Field[strings.LastIndex(te.Field, ".")+1:]
		msg = fmt.Sprintf("argument %s must be a %s, not a JSON %s", cut(field), jsonKind(te.Type.Kind().String()), te.Value)
	case strings.HasPrefix(err.Error(), `json: unknown field "`):
		name := strings.TrimSuffix(strings.TrimPrefix(err.Error(), `json: unknown field "`), `"`)
		msg = fmt.Sprintf("unknown argument %s", Echo(name))
	default:
		msg = "they are not valid JSON (" + cut(strings.TrimPrefix(err.Error(), "json: ")) + ")"
	}
	return invalid(tool, msg)
}

// invalid is the one text of an invalid argument: "Invalid arguments for
// TOOL: WHAT."
func invalid(tool, what string) *Result {
	return errorResult(fmt.Sprintf("Invalid arguments for %s: %s.", cut(tool), what))
}

// jsonKind names a Go kind the way the model's JSON does.
func jsonKind(k string) string {
	switch {
	case k == "string":
		return "string"
	case k == "bool":
		return "boolean"
	case strings.HasPrefix(k, "float"), strings.HasPrefix(k, "int"):
		return "number"
	case k == "struct", k == "map":
		return "object"
	}
	return k
}

// argError is a problem with one argument found while decoding it.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// required returns the value of a required argument of tool, or the
// result saying it is missing, in the form every invalid argument takes.
func required[T any](tool string, v *T, name string) (T, *Result) {
	if v == nil {
		var zero T
		return zero, invalid(tool, fmt.Sprintf("missing required argument %q", name))
	}
	return *v, nil
}

// seconds is an argument given in seconds. It keeps the number's text, so
// a refusal repeats what the model sent (1e-300 stays 1e-300), and it
// decodes any JSON number, however large or small.
type seconds struct {
	set  bool
	v    float64
	text string
}

func (s *seconds) UnmarshalJSON(b []byte) error {
	text := string(bytes.TrimSpace(b))
	if text == "null" {
		*s = seconds{}
		return nil
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return &argError{fmt.Sprintf("a timeout must be a number of seconds, not %s", cut(text))}
	}
	*s = seconds{set: true, v: v, text: text}
	return nil
}

// duration converts a timeout argument named name: absent is zero (the
// default) unless it is required; anything that is not a number of
// seconds from MinTimeout to max is refused with the range, in the words
// the Shell uses for run_command (a *shellcap.RequestError matching
// shellcap.ErrTimeoutRange).
func (s seconds) duration(name string, max time.Duration, isRequired bool) (time.Duration, error) {
	if !s.set {
		if isRequired {
			return 0, &argError{fmt.Sprintf("missing required argument %q", name)}
		}
		return 0, nil
	}
	if math.IsNaN(s.v) || s.v < MinTimeout.Seconds() || s.v > max.Seconds() {
		return 0, &shellcap.RequestError{Kind: shellcap.ErrTimeoutRange, Msg: core.TimeoutRange(name, max, cut(s.text)+"s")}
	}
	return time.Duration(s.v * float64(time.Second)), nil
}
