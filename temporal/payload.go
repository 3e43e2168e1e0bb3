package temporal

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/shellcap/shellcap"
)

// Temporal carries an activity's input as JSON, and encoding/json replaces
// every byte that is not UTF-8 with U+FFFD: a command or a directory with
// such bytes would reach the host changed, and run as something that was
// never asked for. So the workflow-side functions check their input before
// they schedule anything, and refuse what JSON cannot carry unchanged.
// Bytes that may be binary (a command's stdin, a job's input) travel as
// []byte, which JSON carries as base64.

// checkPayload refuses an activity input holding a string JSON would
// change. A command that is not UTF-8 gets the library's own refusal
// (shellcap.ErrInvalidUTF8); any other field is named by its JSON path.
//
// An input over MaxRequestBytes as JSON is refused too (ErrRequestTooLarge):
// over Temporal's payload limit the workflow task that schedules it fails,
// and the workflow with it.
func checkPayload(in any) error {
	if b, err := json.Marshal(in); err == nil && len(b) > MaxRequestBytes {
		text := fmt.Sprintf("The request is %d bytes as JSON; a call through Temporal carries at most %d. Write long scripts and large input to a file in the workspace, and pass its name instead.", len(b), MaxRequestBytes)
		return &Refusal{Kind: KindBadRequest, Text: text, sentinel: "ErrRequestTooLarge"}
	}
	path, ok := invalidString(reflect.ValueOf(in), "")
	if ok {
		return nil
	}
	if path == "request.command" {
		text := (&shellcap.Result{Err: &shellcap.RequestError{Kind: shellcap.ErrInvalidUTF8}}).Text()
		return &Refusal{Kind: KindBadRequest, Text: text, sentinel: "ErrInvalidUTF8"}
	}
	text := fmt.Sprintf("%s is not valid UTF-8: Temporal carries it as JSON text, which cannot hold it unchanged, so nothing was run.", path)
	return &Refusal{Kind: KindBadRequest, Text: text, sentinel: "ErrInvalidUTF8"}
}

// MaxRequestBytes bounds an activity's input as JSON, well under
// Temporal's payload limit (2 MB by default).
const MaxRequestBytes = 1 << 20

// ErrRequestTooLarge reports an input over MaxRequestBytes.
var ErrRequestTooLarge = errors.New("the request is too large to travel through Temporal")

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// invalidString walks v and reports the JSON path of the first string
// that is not valid UTF-8, or ok when there is none. []byte fields
// (base64 in JSON) and raw JSON are carried as they are.
func invalidString(v reflect.Value, path string) (bad string, ok bool) {
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			return path, false
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return invalidString(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			if bad, ok := invalidString(v.Field(i), jsonPath(path, name)); !ok {
				return bad, false
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if k.Kind() == reflect.String && !utf8.ValidString(k.String()) {
				return jsonPath(path, "(a key)"), false
			}
			if bad, ok := invalidString(v.MapIndex(k), jsonPath(path, fmt.Sprint(k))); !ok {
				return bad, false
			}
		}
	case reflect.Slice:
		if v.Type() == rawMessageType || v.Type().Elem().Kind() == reflect.Uint8 {
			return "", true
		}
		for i := range v.Len() {
			if bad, ok := invalidString(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); !ok {
				return bad, false
			}
		}
	}
	return "", true
}

func jsonPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
