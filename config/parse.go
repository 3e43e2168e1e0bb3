package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse parses a configuration file's contents. name is used in error
// messages only. JSON is parsed as YAML, of which it is a subset. An empty
// document sets nothing. A null value ("key:" or "key: null") leaves the
// key unset, so the default applies.
func Parse(data []byte, name string) (*File, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &File{}, nil
		}
		return nil, &Error{Source: name, Msg: err.Error()}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &Error{Source: name, Line: extra.Line, Msg: "more than one YAML document"}
	}
	p := parser{name: name, f: &File{}}
	root := resolve(&doc)
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = resolve(root.Content[0])
	}
	if isNull(root) {
		return p.f, nil
	}
	if err := p.mapping(root, ""); err != nil {
		return nil, err
	}
	return p.f, nil
}

type parser struct {
	name string
	f    *File
}

func (p *parser) errorf(n *yaml.Node, key, format string, args ...any) error {
	return &Error{Source: p.name, Key: key, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// mapping decodes the keys of a mapping node whose key path is prefix
// ("" for the top level, "policy." for a section).
func (p *parser) mapping(n *yaml.Node, prefix string) error {
	where := strings.TrimSuffix(prefix, ".")
	if n.Kind != yaml.MappingNode {
		if where == "" {
			return p.errorf(n, "", "the configuration must be a mapping of keys to values")
		}
		return p.errorf(n, where, "must be a mapping of keys to values")
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		kn, vn := resolve(n.Content[i]), resolve(n.Content[i+1])
		if kn.Kind != yaml.ScalarNode {
			return p.errorf(kn, where, "keys must be plain strings")
		}
		key := prefix + kn.Value
		if seen[key] {
			return p.errorf(kn, key, "duplicate key")
		}
		seen[key] = true
		if sections[key] {
			if isNull(vn) {
				continue
			}
			if err := p.mapping(vn, key+"."); err != nil {
				return err
			}
			continue
		}
		fd := fieldByKey(key)
		if fd == nil {
			return p.errorf(kn, key, "unknown key")
		}
		if err := p.value(fd, vn); err != nil {
			return err
		}
	}
	return nil
}

// value decodes one field's value node.
func (p *parser) value(fd *field, n *yaml.Node) error {
	if isNull(n) {
		return nil
	}
	dst := fd.value(p.f)
	switch fd.typ {
	case stringsType:
		if n.Kind != yaml.SequenceNode {
			return p.errorf(n, fd.key, "must be a list")
		}
		list := make([]string, 0, len(n.Content))
		for i, e := range n.Content {
			e = resolve(e)
			if e.Kind != yaml.ScalarNode || isNull(e) {
				return p.errorf(e, fmt.Sprintf("%s[%d]", fd.key, i), "must be a string")
			}
			list = append(list, e.Value)
		}
		dst.Set(reflect.ValueOf(list))
	case mapType:
		if n.Kind != yaml.MappingNode {
			return p.errorf(n, fd.key, "must be a mapping of names to values")
		}
		m := make(map[string]string, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := resolve(n.Content[i]), resolve(n.Content[i+1])
			if kn.Kind != yaml.ScalarNode {
				return p.errorf(kn, fd.key, "names must be plain strings")
			}
			key := fd.key + "." + kn.Value
			if _, dup := m[kn.Value]; dup {
				return p.errorf(kn, key, "duplicate key")
			}
			if vn.Kind != yaml.ScalarNode || isNull(vn) {
				return p.errorf(vn, key, "must be a string")
			}
			m[kn.Value] = vn.Value
		}
		dst.Set(reflect.ValueOf(m))
	default:
		if n.Kind != yaml.ScalarNode {
			return p.errorf(n, fd.key, "must be a single value, not a %s", kindName(n.Kind))
		}
		v, msg := parseScalar(fd.typ.Elem(), n.Value, func(string) (bool, bool) {
			return strings.EqualFold(n.Value, "true"), n.ShortTag() == "!!bool"
		})
		if msg != "" {
			return p.errorf(n, fd.key, "%s", msg)
		}
		ptr := reflect.New(fd.typ.Elem())
		ptr.Elem().Set(v)
		dst.Set(ptr)
	}
	if prob := fd.check(dst); prob != nil {
		return p.errorf(n, fd.key+prob.sub, "%s", prob.msg)
	}
	return nil
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "node"
}
