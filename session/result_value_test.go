package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestResultJSONByValue: a Result marshalled as a value (in a slice, a
// map, a struct field) keeps "restarted", as through a pointer.
func TestResultJSONByValue(t *testing.T) {
	r := Result{Result: shellcap.Result{Command: "exit", ExitCode: 0}, Restarted: true}
	for _, v := range []any{r, &r, []Result{r}, map[string]Result{"a": r}} {
		b, err := json.Marshal(v)
		if err != nil || !strings.Contains(string(b), `"restarted":true`) {
			t.Errorf("%T: %s, %v", v, b, err)
		}
	}
}
