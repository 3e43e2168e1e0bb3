package toolset_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/toolset"
)

// resolve compiles a schema given as a map with google/jsonschema-go.
func resolve(t *testing.T, what string, m map[string]any) *jsonschema.Resolved {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return rs
}

// validArgs are arguments every tool accepts, in the plain and the strict
// (every property present, optional ones null) shape.
var validArgs = map[string]struct{ plain, strict string }{
	toolset.RunCommand:   {`{"command":"echo ok"}`, `{"command":"echo ok","timeout_seconds":null}`},
	toolset.StartCommand: {`{"command":"true"}`, `{"command":"true","stdin":null}`},
	toolset.CheckCommand: {`{"command_id":"x"}`, `{"command_id":"x","new_only":null}`},
	toolset.WaitCommand:  {`{"command_id":"x","timeout_seconds":1}`, `{"command_id":"x","timeout_seconds":1}`},
	toolset.SendInput:    {`{"command_id":"x","text":"hi"}`, `{"command_id":"x","text":"hi","eof":null}`},
	toolset.StopCommand:  {`{"command_id":"x"}`, `{"command_id":"x"}`},
	toolset.ListCommands: {`{}`, `{}`},
	toolset.ShellTool:    {`{"command":"true"}`, `{"command":"true","mode":null,"timeout":null}`},
	toolset.BashTool:     {`{"command":"echo ok"}`, `{"command":"echo ok","restart":null,"session_id":null,"timeout_seconds":null}`},
}

// TestSchemas: every tool's input and output schema compiles as JSON
// Schema; the strict variant obeys the strict rules (every property
// required, additionalProperties false, optional ones nullable, no
// default); valid arguments validate against both, and the strict shape
// is refused by neither schema's handler (see TestNullMeansAbsent).
func TestSchemas(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	var names []string
	for _, tool := range ts.Tools() {
		names = append(names, tool.Name)
		t.Run(tool.Name, func(t *testing.T) {
			if tool.Title == "" || tool.Description == "" {
				t.Error("no title or description")
			}
			in := resolve(t, "input", tool.InputSchema)
			if tool.OutputSchema != nil {
				resolve(t, "output", tool.OutputSchema)
			}
			strict := tool.StrictInputSchema()
			sin := resolve(t, "strict input", strict)
			if strict["additionalProperties"] != false {
				t.Error("strict: additionalProperties is not false")
			}
			props := strict["properties"].(map[string]any)
			req, _ := strict["required"].([]string)
			orig, _ := tool.InputSchema["required"].([]string)
			for name, p := range props {
				p := p.(map[string]any)
				if !slices.Contains(req, name) {
					t.Errorf("strict: %s is not required", name)
				}
				if _, ok := p["default"]; ok {
					t.Errorf("strict: %s has a default", name)
				}
				typ, _ := p["type"].([]string)
				if !slices.Contains(orig, name) && !slices.Contains(typ, "null") {
					t.Errorf("strict: optional %s is not nullable: %v", name, p["type"])
				}
			}
			if data, _ := json.Marshal(strict); !strings.Contains(string(data), `"required":[`) {
				t.Errorf("strict: required is not a list: %s", data)
			}
			if len(req) != len(props) {
				t.Errorf("strict: required %v, properties %d", req, len(props))
			}
			args, ok := validArgs[tool.Name]
			if !ok {
				t.Fatal("no valid arguments in the table")
			}
			var plain, strictArgs any
			json.Unmarshal([]byte(args.plain), &plain)
			json.Unmarshal([]byte(args.strict), &strictArgs)
			if err := in.Validate(plain); err != nil {
				t.Errorf("plain arguments do not validate: %v", err)
			}
			if err := sin.Validate(strictArgs); err != nil {
				t.Errorf("strict arguments do not validate against the strict schema: %v", err)
			}
			if err := sin.Validate(map[string]any{"bogus": 1}); err == nil {
				t.Error("strict schema accepts an unknown property")
			}
		})
	}
	if !slices.Equal(names, toolset.AllTools) {
		t.Errorf("tools %v, want %v", names, toolset.AllTools)
	}
}

// TestNullMeansAbsent: the handler accepts the strict shape, null for
// every optional argument, as if it were left out.
func TestNullMeansAbsent(t *testing.T) {
	ts := newToolset(t, shellcap.Options{}, toolset.Options{})
	c := ts.Conversation("null")
	defer c.Close()
	for _, tc := range []struct{ tool, args, want string }{
		{toolset.RunCommand, `{"command":"echo ok","timeout_seconds":null}`, "ok\n"},
		{toolset.BashTool, `{"command":"echo ok","restart":null,"session_id":null,"timeout_seconds":null}`, "ok\n"},
		{toolset.ShellTool, `{"command":"echo ok","mode":null,"timeout":null}`, "ok\n"},
		{toolset.StartCommand, `{"command":"echo ok","stdin":null}`, "ID"},
	} {
		res := call(t, c, tc.tool, tc.args, toolset.Hooks{})
		if res.IsError || !containsText(res.Text, tc.want) {
			t.Errorf("%s %s: isError %v, text %q, want it to contain %q", tc.tool, tc.args, res.IsError, res.Text, tc.want)
		}
	}
}
