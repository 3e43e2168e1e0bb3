package policy

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileKeys are the keys of a policy file, with where each one goes.
var fileKeys = map[string]func(*Rules) any{
	"allowed_commands":  func(r *Rules) any { return &r.AllowedCommands },
	"denied_commands":   func(r *Rules) any { return &r.DeniedCommands },
	"denied_operators":  func(r *Rules) any { return &r.DeniedOperators },
	"allow_interactive": func(r *Rules) any { return &r.AllowInteractive },
	"deny_patterns":     func(r *Rules) any { return &r.DenyPatterns },
	"allow_patterns":    func(r *Rules) any { return &r.AllowPatterns },
	"approval":          func(r *Rules) any { return &r.Approval },
}

// ParseRules reads a policy file: a YAML mapping (JSON works too, as it is
// YAML) with the snake_case keys allowed_commands, denied_commands,
// denied_operators, allow_interactive, deny_patterns, allow_patterns and
// approval. A key that is absent keeps the zero value, as in Rules; an
// empty list is not the same as an absent key ("denied_commands: []"
// disables the deny list, "allow_patterns: []" denies everything). Unknown
// keys are errors that name the key. The rules are validated as New
// validates them. An empty file gives the default rules.
//
//	allowed_commands: [git, go, ls, cat, rg]
//	denied_operators: [">", ">>"]
//	deny_patterns: ['^git push']
func ParseRules(data []byte) (Rules, error) {
	var r Rules
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Rules{}, fileError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return r, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return r, nil
	}
	if root.Kind != yaml.MappingNode {
		return Rules{}, invalid("policy file: line %d: want a mapping of keys such as allowed_commands, found %s", root.Line, nodeKind(root))
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		target, ok := fileKeys[k.Value]
		if !ok {
			return Rules{}, invalid("policy file: line %d: unknown key %q (known keys: %s)", k.Line, k.Value, strings.Join(knownKeys(), ", "))
		}
		if seen[k.Value] {
			return Rules{}, invalid("policy file: line %d: key %q appears twice", k.Line, k.Value)
		}
		seen[k.Value] = true
		if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
			continue
		}
		if err := v.Decode(target(&r)); err != nil {
			return Rules{}, invalid("policy file: line %d: %s: %s", v.Line, k.Value, strings.TrimPrefix(fileError(err).Error(), "yaml: "))
		}
	}
	if _, err := New(r); err != nil {
		msg := strings.TrimPrefix(err.Error(), ErrInvalidRules.Error()+": ")
		return Rules{}, invalid("policy file: %s", goToFileNames.Replace(msg))
	}
	return r, nil
}

var goToFileNames = strings.NewReplacer(
	"AllowedCommands", "allowed_commands", "DeniedCommands", "denied_commands",
	"DeniedOperators", "denied_operators", "DenyPatterns", "deny_patterns", "AllowPatterns", "allow_patterns",
)

func fileError(err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n")
	msg = strings.Join(strings.Fields(msg), " ")
	return invalid("policy file: %s", msg)
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "the value " + pyRepr(strings.TrimSpace(n.Value))
	}
	return "something else"
}

func knownKeys() []string {
	var keys []string
	for k := range fileKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
