package toolset

import (
	"maps"
	"slices"
)

// StrictInputSchema returns the strict-mode variant of the input schema,
// for providers that require one (OpenAI's strict function calling, among
// others): every property is required, additionalProperties is false, an
// optional property also accepts null (which the handler reads as
// absent), and keywords strict mode does not allow ("default") are left
// out. The tool's handler accepts arguments valid against either schema.
func (t *Tool) StrictInputSchema() map[string]any {
	return strictSchema(t.InputSchema)
}

func strictSchema(s map[string]any) map[string]any {
	out := maps.Clone(s)
	props, _ := s["properties"].(map[string]any)
	req := map[string]bool{}
	if r, ok := s["required"].([]string); ok {
		for _, name := range r {
			req[name] = true
		}
	}
	strictProps := map[string]any{}
	for name, p := range props {
		ps := maps.Clone(p.(map[string]any))
		delete(ps, "default")
		if !req[name] {
			ps["type"] = nullable(ps["type"])
			if enum, ok := ps["enum"].([]string); ok {
				vals := make([]any, 0, len(enum)+1)
				for _, v := range enum {
					vals = append(vals, v)
				}
				ps["enum"] = append(vals, nil)
			}
		}
		strictProps[name] = ps
	}
	out["properties"] = strictProps
	out["required"] = append([]string{}, slices.Sorted(maps.Keys(strictProps))...)
	out["additionalProperties"] = false
	return out
}

// nullable adds "null" to a schema's type.
func nullable(typ any) any {
	switch t := typ.(type) {
	case string:
		return []string{t, "null"}
	case []string:
		if slices.Contains(t, "null") {
			return t
		}
		return append(slices.Clone(t), "null")
	}
	return typ
}
