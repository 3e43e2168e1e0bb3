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

// TestResultJSONJob: "job" joins "restarted" in the object, alone or not.
func TestResultJSONJob(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Result{Job: 2}, `"job":2}`},
		{Result{Job: 3, Restarted: true}, `"restarted":true,"job":3}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.r)
		if err != nil || !strings.HasSuffix(string(b), tt.want) || !json.Valid(b) {
			t.Errorf("%+v: %s, %v", tt.r, b, err)
		}
	}
}
