package mcpserver_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/mcpserver"
)

// TestOutputSchemas: the tools that return the Result shape declare an
// outputSchema, and what they return validates against it, for finished,
// refused, timed-out and promoted commands; the input schema states the
// timeout's range.
func TestOutputSchemas(t *testing.T) {
	cs, _ := connectWith(t, shellcap.Options{MaxTimeout: 10 * time.Minute}, nil, &mcpserver.Options{ForegroundTimeout: 300 * time.Millisecond})
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tool := range tools.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		data, _ := json.Marshal(tool.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
		schemas[tool.Name] = rs
		if tool.Name == mcpserver.RunCommand {
			in, _ := json.Marshal(tool.InputSchema)
			if !regexp.MustCompile(`"timeout_seconds":\{[^}]*"maximum":600`).Match(in) || !regexp.MustCompile(`at most 600s`).Match(in) {
				t.Errorf("run_command's input schema does not state the 600 s limit: %s", in)
			}
		}
	}
	for _, name := range []string{mcpserver.RunCommand, mcpserver.BashTool} {
		if schemas[name] == nil {
			t.Fatalf("%s declares no outputSchema", name)
		}
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{mcpserver.RunCommand, map[string]any{"command": "echo ok"}},
		{mcpserver.RunCommand, map[string]any{"command": "exit 3"}},
		{mcpserver.RunCommand, map[string]any{"command": "rm -rf /"}},
		{mcpserver.RunCommand, map[string]any{"command": "sleep 1", "timeout_seconds": 0.1}},
		{mcpserver.RunCommand, map[string]any{"command": "sleep 5", "timeout_seconds": 900}},
		{mcpserver.RunCommand, map[string]any{"command": "echo begun; sleep 2"}}, // promoted
		{mcpserver.BashTool, map[string]any{"command": "echo in bash"}},
		{mcpserver.BashTool, map[string]any{"command": "rm -rf /"}},
		{mcpserver.BashTool, map[string]any{"restart": true}},
	}
	for _, c := range calls {
		res := call(t, cs, c.tool, c.args)
		data, _ := json.Marshal(res.StructuredContent)
		var v any
		json.Unmarshal(data, &v)
		if err := schemas[c.tool].Validate(v); err != nil {
			t.Errorf("%s %v: structured result does not match its outputSchema: %v\n%s", c.tool, c.args, err, data)
		}
	}
}
