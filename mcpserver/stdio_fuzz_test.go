package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzParseLine: whatever a line holds, parseLine returns either a message
// or one of the two errors the specification names (or nothing, for a
// blank line or a response to nothing), and the id it echoes is valid.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{"hello", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "[1,2,3]", "42", "{}",
		`{"id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, `{"jsonrpc":"2.0","id":NaN}`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "[[[[[", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, id, code, why := parseLine(line)
		switch {
		case msg != nil:
			if code != 0 || id != nil {
				t.Fatalf("a message and an error for %q", line)
			}
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("accepted %q cannot be encoded: %v", line, err)
			}
		case code == 0:
			// Nothing to answer.
		case code != jsonrpc.CodeParseError && code != jsonrpc.CodeInvalidRequest:
			t.Fatalf("code %d for %q", code, line)
		case why == "":
			t.Fatalf("no message for %q", line)
		case id != nil && !validID(id):
			t.Fatalf("echoes invalid id %s for %q", id, line)
		case id != nil && !json.Valid(id):
			t.Fatalf("echoes non-JSON id %s", id)
		}
	})
}
