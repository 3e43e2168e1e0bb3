package config

import "strings"

// A Layer is a configuration layer with where its values come from, for
// [MergeLayers] and `shellcap config print`.
type Layer struct {
	// File holds the keys the layer sets.
	File *File
	// Origin names where the layer's value of key comes from: a file's
	// path, "$SHELLCAP_DEFAULT_TIMEOUT", "flag --max-timeout". Nil uses
	// Name for every key.
	Origin func(key string) string
	// Name describes the layer as a whole.
	Name string
}

func (l Layer) origin(key string) string {
	if l.Origin != nil {
		if s := l.Origin(key); s != "" {
			return s
		}
	}
	return l.Name
}

// FileLayer is the layer of a configuration file at path; note is added
// after the path, such as "(workspace file, tightening only)".
func FileLayer(f *File, path, note string) Layer {
	name := path
	if note != "" {
		name += " " + note
	}
	return Layer{File: f, Name: name}
}

// EnvLayer is the layer [FromEnv] read: each key comes from its SHELLCAP_
// variable.
func EnvLayer(f *File) Layer {
	return Layer{File: f, Name: "environment", Origin: func(key string) string {
		switch fd := fieldByKey(key); {
		case fd == nil:
			return ""
		case key == "server.token":
			return "$SHELLCAP_SERVER_TOKEN or $SHELLCAP_TOKEN"
		case fd.typ == mapType:
			return "$" + envMapPrefix + "*"
		default:
			return "$" + fd.env
		}
	}}
}

// Origins maps each key path a layer set to where the effective value
// came from; a key that is absent has its default. A map (env) merged from
// several layers names them all, joined with " + ".
type Origins map[string]string

// MergeLayers is [Merge] over layers, lowest precedence first, and says
// where each key's effective value came from.
func MergeLayers(layers ...Layer) (*File, Origins) {
	files := make([]*File, 0, len(layers))
	origins := Origins{}
	for _, l := range layers {
		if l.File == nil {
			continue
		}
		files = append(files, l.File)
		for i := range fields {
			fd := &fields[i]
			if !isSet(fd.value(l.File)) {
				continue
			}
			o := l.origin(fd.key)
			if prev, ok := origins[fd.key]; ok && fd.typ == mapType && !strings.Contains(prev, o) {
				o = prev + " + " + o
			}
			origins[fd.key] = o
		}
	}
	return Merge(files...), origins
}
