package toolset

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Definition is what a host tells the model about one tool, as JSON: a
// toolset's [Tool.Definition], carried to where the tools are offered
// (the temporal module's front door offers those of the worker that runs
// the commands, see [Options.Definitions]).
type Definition struct {
	Name         string         `json:"name"`
	Title        string         `json:"title,omitempty"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"input_schema"`
	OutputSchema map[string]any `json:"output_schema,omitempty"`
	Annotations  Annotations    `json:"annotations"`
}

// Definition returns what the host tells the model about the tool. Its
// schemas are the tool's own: read them, do not modify them.
func (t *Tool) Definition() Definition {
	return Definition{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
}

// Definitions returns the definitions of the tools offered, in order.
func (ts *Toolset) Definitions() []Definition {
	defs := make([]Definition, 0, len(ts.tools))
	for _, t := range ts.tools {
		defs = append(defs, t.Definition())
	}
	return defs
}

// DescribedRemote is a Remote that knows the definitions of the tools
// where its calls run (the temporal module's front door, which asks a
// worker). A toolset whose Options.Remote is one, and whose
// Options.Definitions is nil, offers the tools Definitions returns; nil
// from Definitions means the usual definitions (see Options.Remote).
type DescribedRemote interface {
	Remote
	Definitions() []Definition
}

// definitions are the definitions a remote toolset offers its tools
// with: Options.Definitions, else the Remote's, else nil (the usual
// ones). They are checked and copied, with every array of strings of the
// schemas as []string, as a local toolset's are, whatever JSON decoding
// made of them.
func (o Options) definitions() ([]Definition, error) {
	defs := o.Definitions
	if defs != nil && o.Remote == nil {
		return nil, errors.New("toolset: option Definitions: describes a Remote's tools; set Remote, or leave it nil")
	}
	if defs != nil && o.Shell != nil {
		return nil, errors.New("toolset: options Definitions and Shell both state the tools' definitions: set one")
	}
	if defs == nil {
		if d, ok := o.Remote.(DescribedRemote); ok {
			defs = d.Definitions()
		}
	}
	if defs == nil {
		return nil, nil
	}
	out := make([]Definition, 0, len(defs))
	for _, d := range defs {
		switch {
		case !slices.Contains(AllTools, d.Name):
			return nil, fmt.Errorf("%w: a definition names %s (known: %s)", ErrUnknownTool, Echo(d.Name), strings.Join(AllTools, ", "))
		case slices.ContainsFunc(out, func(o Definition) bool { return o.Name == d.Name }):
			return nil, fmt.Errorf("toolset: option Definitions: %s is defined twice", d.Name)
		case d.InputSchema == nil:
			return nil, fmt.Errorf("toolset: option Definitions: %s has no input schema", d.Name)
		}
		d.InputSchema = schemaCopy(d.InputSchema)
		if d.OutputSchema != nil {
			d.OutputSchema = schemaCopy(d.OutputSchema)
		}
		out = append(out, d)
	}
	return out, nil
}

// defined builds the tool of a remote toolset from its definition.
func (ts *Toolset) defined(d Definition) *Tool {
	return &Tool{Name: d.Name, Title: d.Title, Description: d.Description, InputSchema: d.InputSchema,
		OutputSchema: d.OutputSchema, Annotations: d.Annotations, ts: ts, handler: ts.remoteHandler(d.Name)}
}

// schemaCopy deep-copies a schema, turning each array whose elements
// are all strings into a []string, the form the toolset's own schemas
// (and StrictInputSchema) use.
func schemaCopy(s map[string]any) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		out[k] = schemaValue(v)
	}
	return out
}

func schemaValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return schemaCopy(v)
	case []string:
		return slices.Clone(v)
	case []any:
		strs := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				vals := make([]any, len(v))
				for i, e := range v {
					vals[i] = schemaValue(e)
				}
				return vals
			}
			strs = append(strs, s)
		}
		return strs
	}
	return v
}
