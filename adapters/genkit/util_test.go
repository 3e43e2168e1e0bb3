package shellgenkit_test

import (
	"encoding/json"
	"testing"
)

// reflectEqualJSON reports whether a and b marshal to the same JSON.
func reflectEqualJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
