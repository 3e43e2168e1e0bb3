package shellcap_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestRefusedResultJSONByValue: a refused Result has "exit_code": null and
// its "error" however it is marshalled: through a pointer, as a value, or
// as a value inside another structure (a slice, a map, a struct field), so
// no host reads a refusal as exit code 0.
func TestRefusedResultJSONByValue(t *testing.T) {
	sh := newShell(t, shellcap.Options{})
	res := run(t, sh, shellcap.Request{Command: "   "})
	if res.Err == nil {
		t.Fatalf("a whitespace-only command ran: %+v", res)
	}
	for name, v := range map[string]any{
		"pointer": res,
		"value":   *res,
		"slice":   []shellcap.Result{*res},
		"map":     map[string]shellcap.Result{"r": *res},
		"field":   struct{ R shellcap.Result }{*res},
	} {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := string(data)
		if !strings.Contains(s, `"exit_code":null`) || !strings.Contains(s, `"error":"The command is empty."`) {
			t.Errorf("%s: %s", name, s)
		}
	}
}
